/**
 * Test doubles, named as such: FakeOpenStack is a FAKE Keystone + Nova over HTTP, with fault
 * injection and a request log, for tests that cannot reach the real OpenStack test bed. It is not
 * OpenStack.
 *
 * @packageDocumentation
 */
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
