// Test doubles, named as such. FakeOpenStack is a FAKE Keystone + Nova, not OpenStack.
export { FakeOpenStack, FAKE_DEFAULTS } from './fake-openstack.js';
export type {
  FakeOpenStackOptions,
  FakeRequestLogEntry,
  FaultSpec,
  FakeInterface,
  FakeService,
} from './fake-openstack.js';
export type { AddServerOptions } from './fake-compute.js';
export type { FakeUser, FakeProject, FakeApplicationCredential } from './fake-identity.js';
export {
  remediationFromTemplate,
  LABEL_CLUSTER_NAME,
  ANNOTATION_CLONED_FROM_NAME,
  ANNOTATION_CLONED_FROM_GROUPKIND,
} from './mhc-clone.js';
export type { TemplateLike, MachineLike } from './mhc-clone.js';
