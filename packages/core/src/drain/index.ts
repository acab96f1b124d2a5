/**
 * Draining a node: cordon, eviction that honours PodDisruptionBudgets (DaemonSet and mirror pods are
 * left alone), uncordon, and the out-of-service taint helper, which is added only after the machine
 * is fenced and never by the drain itself. Everything goes through the DrainPort, so the plan is
 * pure and testable.
 *
 * @packageDocumentation
 */
export {
  planDrain,
  defaultDrainOptions,
  type DrainOptions,
  type DrainPlan,
  type SkipReason,
  type BlockReason,
} from './plan.js';
export {
  drainNode,
  cordonNode,
  uncordonNode,
  addOutOfServiceTaint,
  OutOfServiceTaint,
  type DrainRequest,
  type DrainResult,
  type DrainStep,
} from './executor.js';
export {
  NodeReplacedError,
  type DrainPort,
  type NodeWithUid,
  type NodePatch,
  type EvictionResult,
  type DeleteResult,
} from './port.js';
export {
  kubeDrainPort,
  nodePatchBody,
  evictionResultFromError,
  type KubeDrainPortOptions,
} from './kube-port.js';
export {
  AnnotationMirrorPod,
  podKey,
  podRef,
  controllerOf,
  type PodSnapshot,
  type PodRef,
  type OwnerReferenceSnapshot,
} from './pod.js';
export {
  drainPass,
  type DrainPassRequest,
  type DrainPassResult,
  type DrainPassOutcome,
} from './pass.js';
