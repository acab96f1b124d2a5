// FakeOpenStack, a FAKE Keystone + Nova for tests, and what it is built from and reports.
export { FakeOpenStack } from './fake-openstack.js';
export { FAKE_DEFAULTS } from './options.js';
export type {
  FakeOpenStackOptions,
  FakeRequestLogEntry,
  FaultSpec,
  FakeInterface,
  FakeService,
} from './options.js';
