/**
 * The OpenStackRemediation controller, its reconciler and the remediation ladder it climbs (soft
 * reboot, hard reboot, rebuild: each step with its timeout and retries, then giving up). The
 * command line's flag parser and usage text are not exported.
 *
 * @packageDocumentation
 */
export { addRemediationController, CONTROLLER_NAME, REPORTING_CONTROLLER } from './controller.js';
export type { RemediationControllerOptions, RemediationController } from './controller.js';
export {
  RemediationReconciler,
  FINALIZER,
  CONDITION_TARGET_RESOLVED,
  CONDITION_CORDONED,
  CONDITION_DRAINED,
  CONDITION_REMEDIATED,
  REASON_CORDONED_BY_US,
  REASON_ALREADY_CORDONED,
  REASON_WAITING_FOR_REPLACEMENT,
} from './reconciler.js';
export type { RemediationReconcilerOptions } from './reconciler.js';
export {
  decideLadder,
  nextPosition,
  actionIdFor as remediationActionIdFor,
  cameBack,
  describeLadder,
  intentOf,
  toCoreLadder,
  CONDITION_NODE_RECOVERED,
  FAILED_ATTEMPT_BACKOFF_MS,
  WAIT_RECHECK_MS,
} from './ladder.js';
export type { Action, LadderDecision, LadderInput, Position, EndedAttempt } from './ladder.js';
export { judgeDeadline, reportedSince } from './deadline.js';
export type {
  DeadlineEvidence,
  DeadlineInput,
  DeadlineVerdict,
  LeaseEvidence,
} from './deadline.js';
export {
  CONDITION_ESCALATION_HELD,
  REASON_SILENT_CLOUD_UNAVAILABLE,
  REASON_SILENT_CLUSTER_UNREADABLE,
} from './deadline-check.js';
export { readNode } from './node-view.js';
export type { NodeView as WorkloadNodeView } from './node-view.js';
export {
  CONDITION_CLOUD_REACHABLE,
  CONDITION_FENCED,
  cloudBackoffMs,
  shouldAskFence,
} from './cloud.js';
export { resolveTarget, machineOwner } from './target.js';
export type { Target, DefaultIdentity, OwnerRef, TargetReads } from './target.js';
export { RecentSecrets, SECRET_RECHECK_MS } from './recent-secrets.js';
export type { RecentSecretsOptions, SecretObject } from './recent-secrets.js';
export { RemediationMetrics } from './metrics.js';
export { OpenStackRemediationResource, VersionOrder } from './resources.js';
export { WorkloadClusters, WORKLOAD_CLUSTER_ACCESS } from './workload-clusters.js';
export type {
  WorkloadClusterAccess,
  WorkloadClustersOptions,
  NodeAccess,
} from './workload-clusters.js';
export { NodeSources } from './node-sources.js';
