// The test hypervisor: power actions on real qemu VMs through QMP, its records and control API
// (hypervisor.ts), and the MachineProvider that talks to it (provider.ts).
export { TestHypervisor } from './hypervisor.js';
export { machineOf, providerModule, testHypervisorProvider } from './provider.js';
export { QmpClient, QmpCommandError, type QmpEvent } from './qmp.js';
export {
  PROVIDER_ID_PREFIX,
  type ActionRecord,
  type FenceAnswer,
  type PowerAnswer,
  type TestHypervisorAction,
} from './wire.js';
