/**
 * The NotReady state machine: from what a Node shows (conditions, Lease, taints) to a cause, a
 * health signal and a repair decision (the next state to persist, the actions, when to look again).
 * Pure and deterministic with the clock injected, so the controller, the simulator and tests make
 * the same decision from the same observation. The fleet pass (storm guard, other actors' holds)
 * decides which repairs may start.
 *
 * @packageDocumentation
 */
export {
  classifyNode,
  ReasonNodeStatusNeverUpdated,
  ReasonNodeStatusUnknown,
  type Cause,
  type CauseKind,
  type ClassifyOptions,
} from './cause.js';
export { assessNode, type Assessment, type HealthSignal } from './assess.js';
export {
  decideRepair,
  DECIDE_AGAIN_AFTER_OUTCOME_MS,
  recordOutcome,
  recordFence,
  recordDrain,
  type DrainReport,
  actionIdFor,
  type RepairAction,
  type RepairDecision,
  type ActionOutcome,
  type DecideContext,
} from './decide.js';
export {
  decideAfterReplace,
  isAcceptedReplace,
  recordReplace,
  type DeleteNodeAction,
  type ReplaceReport,
  type AfterReplaceInput,
  type AfterReplaceVerdict,
} from './replace.js';
export {
  progressLadder,
  advanceLadder,
  nextLadderPosition,
  ladderIntent,
  type LadderPosition,
  type LadderIntent,
  type LadderVerdict,
  type LadderAttemptEnd,
  type LadderActionIdFor,
  type LadderProgressInput,
} from './ladder.js';
export {
  RepairPolicyInput,
  RemediationStepKind,
  ConditionRuleAction,
  defaultRepairPolicy,
  resolveRepairPolicy,
  ladderProblems,
  parseCountOrPercent,
  scaleCountOrPercent,
  type RepairPolicy,
  type LadderStep,
  type UnhealthyCondition,
  type StormGuardPolicy,
  type CountOrPercent,
} from './policy.js';
export {
  RepairState,
  RepairPhase,
  RepairIntent,
  RepairStateVersion,
  NotReadyPeriod,
  UncountedReason,
  initialRepairState,
  parseRepairState,
  readStateAnnotation,
  serializeRepairState,
  FenceRecord,
  DrainRecord,
  ReplaceRecord,
  ConditionRuleRef,
  type Remediation,
  type LastRemediation,
  type ActionResult,
} from './state.js';
export { conditionMatches, policyForRule } from './condition-rules.js';
export {
  HISTORY_LIMIT,
  HistoryEntry,
  StepTried,
  StepResult,
  appendHistory,
  clipMessage,
} from './history.js';
export {
  stormGuard,
  isInFlight,
  type StormEntry,
  stormMemoryAtStart,
  emptyStormMemory,
  type StormVerdict,
  type StormPause,
  type StormReport,
  type StormMemory,
  type StormScope,
  type StormHold,
  type LatchState,
  RATE_WINDOW_MS,
} from './storm-guard.js';
export {
  statusReport,
  holdMessage,
  type Hold,
  type HoldKind,
  type NodeStatus,
  type StatusReport,
  type StatusOptions,
  type StepStatus,
} from './status.js';
export {
  getCondition as getNodeCondition,
  hasTaint as nodeHasTaint,
  lastHeartbeat as lastKubeletHeartbeat,
  AnnotationCapiPaused,
  AnnotationCapiSkipRemediation,
  TaintOutOfService,
  TaintUnreachable,
  TaintNotReady,
  TaintCloudShutdown,
  type NodeSnapshot,
  type NodeConditionSnapshot,
  type TaintSnapshot,
  type HealthObservation,
} from './node.js';
export {
  DurationMs,
  IsoTime,
  parseDuration as parseGoDuration,
  formatDuration as formatGoDuration,
  type TimeInput,
} from './time.js';
export {
  decideFleet,
  decideAlone,
  decideMember,
  decideWithFleet,
  wantsToStart,
  type FleetMember,
  type FleetDecision,
} from './fleet.js';
export { newFleetDecider, stateAtStart, type FleetDecider } from './fleet-decider.js';
export { decideBatch, type FleetBatch } from './fleet-batch.js';
export { followEpisodes, inCountedEpisode, repairInFlight, type FlapMemory } from './episodes.js';
export {
  runRepairLoop,
  type TimedObservation,
  type RepairLoopOptions,
  type ActionExecutor,
  type RemediateAction,
} from './runner.js';
export {
  DryRunRebootProvider,
  type RebootProvider,
  type RebootRequest,
  type RebootResult,
} from './provider.js';
export {
  ActorKind,
  CoordinationInput,
  defaultCoordinationPolicy,
  kuredDaemonSetRef,
  type CoordinationPolicy,
} from './coordination-policy.js';
export {
  ControlPlaneInput,
  defaultControlPlanePolicy,
  LabelNodeRoleControlPlane,
  LabelNodeRoleMaster,
  controlPlaneLabel,
  policyForNode,
  type ControlPlanePolicy,
} from './control-plane.js';
export {
  actorHolds,
  parseKuredLock,
  kuredLockUnreadable,
  leaseExpiresAt,
  TaintCapiOutdatedRevision,
  type ActorHold,
  type ActorReport,
  type ActorView,
  type KuredLock,
  type LeaseSnapshot,
  type NodeMaintenanceSnapshot,
} from './actors.js';
export {
  acquireOrRenew,
  disruptionLeaseName,
  release as releaseDisruptionLease,
  renewDue as disruptionLeaseRenewDue,
  type DisruptionLease,
  type DisruptionLeasePort,
  type LeaseRequest,
  type LeaseStep,
  type ReleaseStep,
  type NodeRef,
} from './disruption-lease.js';
