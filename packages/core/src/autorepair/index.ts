/**
 * The standalone auto-repair controller, for clusters without Cluster API. It is the imperative
 * shell around `/health` (the decisions) and `/drain` (the drain executor): it reads Nodes, persists
 * each decision before acting, executes the actions through the machine provider and records what
 * happened.
 *
 * @packageDocumentation
 */
export {
  addAutoRepairController,
  nodeViewPredicate,
  AutoRepairControllerName,
  AutoRepairReportingController,
  type AutoRepairOptions,
  type AutoRepairController,
} from './controller.js';
export { NodeReconciler, type NodeReconcilerDeps, type NodeCache } from './node-reconciler.js';
export {
  LatchStore,
  LatchAnnotation,
  latchLeaseName,
  parseLatch,
  formatLatch,
  type LatchRef,
} from './latch.js';
export { repairTimes, type RepairTimes } from './repair-times.js';
export {
  executeActions,
  type ExecutorDeps,
  type ExecuteTarget,
  type ExecuteSummary,
  type DrainTuning,
  ProviderUnavailableBackoff,
} from './executor.js';
export { runFenceStep, type FenceStepDeps, type FenceStepResult } from './fence-step.js';
export {
  runReplaceStep,
  kubeNodeDeletePort,
  RecreateCapacityNote,
  type NodeDeletePort,
  type NodeIdentity,
  type ReplaceStepDeps,
  type ReplaceStepResult,
  type ReplaceStepTarget,
} from './replace-step.js';
export {
  AnnotationStateStore,
  MemoryStateStore,
  stateChanged,
  worthPersisting,
  type StateStore,
} from './state-store.js';
export {
  AutoRepairMetrics,
  RepairPhases,
  RemediationOutcomes,
  countPhases,
  type RemediationOutcome,
} from './metrics.js';
export {
  EventReasons,
  transitionEvents,
  startsRemediation,
  endsInSuccess,
  describeDrain,
  drainEvent,
  remediationEvent,
} from './events.js';
export { toNodeView, nodeViewChanged, watchedAnnotations, type NodeView } from './node-view.js';
export { Mutex } from './mutex.js';
export {
  readActorSnapshot,
  holdsFromSnapshot,
  ourLeaseHolderFor,
  snapshotProblems,
  DaemonSetResource,
  JobResource,
  NodeMaintenanceResource,
  type ActorSnapshot,
} from './actor-source.js';
export {
  LeaseKeeper,
  DisruptionLeaseHolder,
  LegacyDisruptionLeaseHolder,
  installLeaseHolder,
  DisruptionLeaseSeconds,
  type LeaseTaken,
} from './lease-keeper.js';
export { NodeRepairHeld, heldConditionUpdate, type HeldCondition } from './held-condition.js';
