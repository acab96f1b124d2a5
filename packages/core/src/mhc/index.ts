// mhc/: MachineHealthCheck semantics (v1beta1 + v1beta2 -> one policy), evaluated exactly as
// Cluster API does, plus noderepair's extensions kept apart.
export {
  MachineHealthCheckSpecV1Beta1,
  MachineHealthCheckSpecV1Beta2,
  decodeMachineHealthCheck,
  normaliseV1Beta1,
  normaliseV1Beta2,
  parseUnhealthyRange,
  DefaultNodeStartupTimeoutMs,
  ForbiddenMachineConditionChecks,
  type MhcPolicy,
  type MhcCheck,
  type MhcTrigger,
  type LabelSelector,
} from './spec.js';
export {
  evaluateTarget,
  evaluateMachineHealthCheck,
  isAllowedRemediation,
  isControlPlaneMachine,
  nodeStartupComparisonTime,
  shouldSkip as shouldSkipMhcTarget,
  type TargetEvaluation,
  type MhcEvaluation,
  type MhcUnhealthyReason,
  type CapiRuleOrder,
} from './evaluate.js';
export {
  AnnotationRemediateMachine,
  AnnotationPaused as AnnotationMachinePaused,
  AnnotationSkipRemediation as AnnotationMachineSkipRemediation,
  LabelControlPlane,
  type MhcTarget,
  type MhcMachine,
  type MhcCluster,
  type MhcCondition,
} from './target.js';
export {
  applyFlapMemoryExtension,
  escalationStepExtension,
  type FlapMemoryExtension,
  type FlapMemoryResult,
  type EscalationExtension,
  type ExtendedTargetEvaluation,
} from './extensions.js';
