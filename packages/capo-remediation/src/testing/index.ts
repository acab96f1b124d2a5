// Test doubles and helpers, named as such. The FAKE Keystone + Nova is
// @noderepair/openstack/testing.
export {
  remediationFromTemplate,
  LABEL_CLUSTER_NAME,
  ANNOTATION_CLONED_FROM_NAME,
  ANNOTATION_CLONED_FROM_GROUPKIND,
} from './mhc-clone.js';
export type { TemplateLike, MachineLike } from './mhc-clone.js';
