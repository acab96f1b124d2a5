/**
 * The names a first controller needs from `@noderepair/core`: a client, a Manager, a repair
 * policy and the auto-repair controller. Everything else lives under one subpath per concept:
 * `/runtime` (informers, queue, controllers, leader election, manager), `/kube` (client port,
 * resources, kubeconfig), `/kfc` (kubernetes-fluent-client adapter), `/codec` (strict input
 * decoding), `/health` (the NotReady state machine), `/mhc` (MachineHealthCheck semantics),
 * `/drain`, `/provider` (machine provider port), `/autorepair` and `/testing` (test doubles).
 * Each name here is also exported by its concept subpath; it is the same declaration.
 *
 * @packageDocumentation
 */
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
