// Test doubles, named as such. FakeOpenStack is a FAKE Keystone + Nova, not OpenStack.
export { FakeOpenStack, FAKE_DEFAULTS } from './fake-openstack/index.js';
export type {
  FakeOpenStackOptions,
  FakeRequestLogEntry,
  FaultSpec,
  FakeInterface,
  FakeService,
} from './fake-openstack/index.js';
export type { AddServerOptions } from './fake-openstack/fake-compute.js';
export type {
  FakeUser,
  FakeProject,
  FakeApplicationCredential,
} from './fake-openstack/fake-identity.js';
