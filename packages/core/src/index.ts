// @noderepair/core: the handful of names a first controller needs — a client, a Manager, a
// repair policy and the auto-repair controller. Everything else lives under one subpath per
// concept: /runtime (informers, queue, controllers, leader election, manager), /kube (client
// port, resources, kubeconfig), /codec (strict input decoding), /health (the NotReady state
// machine), /mhc (MachineHealthCheck semantics), /drain, /provider (machine provider port),
// /autorepair, /kfc (kubernetes-fluent-client adapter) and /testing (test doubles).
// Each name below is also exported by its concept subpath; it is the same declaration.
export {
  createKubeClient,
  loadKubeConfig,
  NodeResource,
  type KubeClient,
  type KubeNode,
  type LoadKubeConfigOptions,
} from './kube/index.js';
export {
  Manager,
  defaultLeaderIdentity,
  EventRecorder,
  ServerSideApplier,
  type ManagerOptions,
} from './runtime/index.js';
export { resolveRepairPolicy, defaultRepairPolicy, type RepairPolicy } from './health/index.js';
export {
  addAutoRepairController,
  type AutoRepairOptions,
  type AutoRepairController,
} from './autorepair/index.js';
