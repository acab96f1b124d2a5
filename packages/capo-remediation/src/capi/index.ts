// Cluster API and CAPO objects as remediation sees them: pure readers and patch builders.
export { readMachine, CAPI_GROUP } from './machine.js';
export type { MachineView, MachineVersion, InfrastructureRef } from './machine.js';
export { readOpenStackMachine, CAPO_GROUP } from './openstack-machine.js';
export type { OpenStackMachineView, IdentityRef } from './openstack-machine.js';
export { resolveServer } from './server-ref.js';
export type { ServerRef } from './server-ref.js';
export { cloudFromIdentitySecret } from './identity-secret.js';
export type { SecretLike } from './identity-secret.js';
export {
  ownerRemediatedPatch,
  OWNER_REMEDIATED,
  WAITING_FOR_REMEDIATION,
} from './owner-remediated.js';
export type { StatusPatch } from './owner-remediated.js';
export {
  kubeconfigFromSecret,
  kubeconfigSecretName,
  KUBECONFIG_SECRET_KEY,
} from './cluster-kubeconfig.js';
