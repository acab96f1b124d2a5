/**
 * MachineHealthCheck semantics: v1beta1 and v1beta2 specs read into one policy and evaluated exactly
 * as Cluster API does (the pinned v1.13 by default, older releases selectable). noderepair's own
 * extensions are kept apart, so a MachineHealthCheck means here what it means to Cluster API.
 *
 * @packageDocumentation
 */
export {
  MachineHealthCheckSpecV1Beta1,
  MachineHealthCheckSpecV1Beta2,
  decodeMachineHealthCheck,
  normaliseV1Beta1,
  normaliseV1Beta2,
  DefaultNodeStartupTimeoutMs,
  type MhcPolicy,
  type MhcTrigger,
} from './spec.js';
export { type LabelSelector, type MhcCheck } from './terms.js';
export {
  parseUnhealthyRange,
  parseIntOrPercent,
  ForbiddenMachineConditionChecks,
  MaxConditionChecks,
} from './validate.js';
export { parseGoDurationNs, truncateToSeconds, goDuration } from './duration.js';
export {
  CapiRuleOrders,
  DefaultCapiRuleOrder,
  orderRules,
  type CapiRuleOrder,
  type OrderRules,
} from './order.js';
export {
  evaluateTarget,
  isControlPlaneMachine,
  nodeStartupComparisonTime,
  type TargetEvaluation,
} from './judge.js';
export {
  evaluateMachineHealthCheck,
  isAllowedRemediation,
  shouldSkip as shouldSkipMhcTarget,
  type MhcEvaluation,
} from './evaluate.js';
export {
  machineMarkedUnhealthyEvent,
  remediationRestrictedMessage,
  RemediateAnnotationMessage,
  type MhcUnhealthyReason,
  type V1Beta1ConditionText,
} from './messages.js';
export {
  capiRemediationMark,
  OwnerRemediatedMessage,
  type CapiRemediationMark,
  type MetaConditionText,
} from './remediation.js';
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
  type MhcFlapMemory,
  type EscalationExtension,
  type ExtendedTargetEvaluation,
} from './extensions.js';
