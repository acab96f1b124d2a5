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
