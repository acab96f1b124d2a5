/**
 * Test helpers, named as such: what Cluster API's MachineHealthCheck does when it clones a
 * remediation template for a Machine, for tests of the controller. The FAKE Keystone + Nova is
 * `@noderepair/openstack/testing`.
 *
 * @packageDocumentation
 */
export {
  remediationFromTemplate,
  LABEL_CLUSTER_NAME,
  ANNOTATION_CLONED_FROM_NAME,
  ANNOTATION_CLONED_FROM_GROUPKIND,
} from './mhc-clone.js';
export type { TemplateLike, MachineLike } from './mhc-clone.js';
