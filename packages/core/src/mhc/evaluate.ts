// Target evaluation exactly as Cluster API's MachineHealthCheck controller does it
// (internal/controllers/machinehealthcheck: needsRemediation, healthCheckTargets,
// isAllowedRemediation). Written from the behaviour, not copied; the table tests in
// evaluate.test.ts pin each rule. Times are epoch ms; `now` is injected.
import { getCondition } from '../health/node.js';
import { scaleCountOrPercent } from '../health/policy.js';
import { formatDuration, nowMillis, toMillis } from '../health/time.js';
import type { MhcCheck, MhcPolicy } from './spec.js';
import {
  AnnotationPaused,
  AnnotationRemediateMachine,
  AnnotationSkipRemediation,
  ConditionControlPlaneInitialized,
  ConditionInfrastructureReady,
  LabelControlPlane,
  type MhcCluster,
  type MhcCondition,
  type MhcMachine,
  type MhcTarget,
} from './target.js';

/** HealthCheckSucceeded=False reasons (v1beta2 names). */
export type MhcUnhealthyReason =
  | 'HasRemediateAnnotation'
  | 'MachineHasFailure'
  | 'NodeDeleted'
  | 'NodeStartupTimeout'
  | 'UnhealthyNode'
  | 'UnhealthyMachine';

/**
 * Rule order. 'v1.11': remediate annotation, failureReason/Message, NodeDeleted, cluster
 * gates, startup, node conditions (first expired wins) — the order in cluster-api.md.
 * 'v1.12': remediate annotation, cluster gates, machine conditions, NodeDeleted, startup,
 * node conditions (all collected); the failureReason rule is gone.
 */
export type CapiRuleOrder = 'v1.11' | 'v1.12';

export interface TargetEvaluation {
  machine: string;
  needsRemediation: boolean;
  reason?: MhcUnhealthyReason;
  message?: string;
  /** 0 = no requeue wanted for this target; else ms until it should be looked at again. */
  nextCheckMs: number;
}

const SECOND = 1000;

function condition(list: MhcCondition[] | undefined, type: string): MhcCondition | undefined {
  return list?.find((c) => c.type === type);
}
function isTrue(list: MhcCondition[] | undefined, type: string): boolean {
  return condition(list, type)?.status === 'True';
}
export function isControlPlaneMachine(m: MhcMachine): boolean {
  return m.metadata.labels?.[LabelControlPlane] !== undefined;
}
function machineConditions(m: MhcMachine): MhcCondition[] | undefined {
  return m.status?.conditions;
}

/** Checks the listed conditions; expired ones give messages, the others a next check of remaining + 1 s. */
function checkConditions(
  checks: MhcCheck[],
  lookup: (type: string) => { status: string; lastTransitionTime?: unknown } | undefined,
  on: 'Node' | 'Machine',
  now: number,
  nextChecks: number[],
  stopAtFirst: boolean,
): string[] {
  const messages: string[] = [];
  for (const c of checks) {
    const cond = lookup(c.type);
    if (cond === undefined || cond.status !== c.status) continue;
    const since = toMillis(cond.lastTransitionTime as never) ?? 0;
    // Unhealthy only when lastTransitionTime + timeout is strictly before now.
    if (since + c.timeoutMs < now) {
      messages.push(
        `Condition ${c.type} on ${on} is reporting status ${c.status} for more than ${formatDuration(c.timeoutMs)}`,
      );
      if (stopAtFirst) return messages;
      continue;
    }
    const next = c.timeoutMs - (now - since) + SECOND;
    if (next > 0) nextChecks.push(next);
  }
  return messages;
}

/** Latest of: Machine creation, cluster ControlPlaneInitialized, cluster InfrastructureReady, Machine InfrastructureReady (each only when True). */
export function nodeStartupComparisonTime(target: MhcTarget, cluster: MhcCluster): number {
  let t = toMillis(target.machine.metadata.creationTimestamp) ?? 0;
  const consider = (list: MhcCondition[] | undefined, type: string) => {
    const c = condition(list, type);
    const ltt = toMillis(c?.lastTransitionTime);
    if (c?.status === 'True' && ltt !== undefined && ltt > t) t = ltt;
  };
  consider(cluster.conditions, ConditionControlPlaneInitialized);
  consider(cluster.conditions, ConditionInfrastructureReady);
  consider(machineConditions(target.machine), ConditionInfrastructureReady);
  return t;
}

const minPositive = (xs: number[]): number => (xs.length === 0 ? 0 : Math.min(...xs));

export function evaluateTarget(
  target: MhcTarget,
  policy: MhcPolicy,
  cluster: MhcCluster,
  nowInput: Date | number,
  order: CapiRuleOrder = 'v1.11',
): TargetEvaluation {
  const now = nowMillis(nowInput);
  const m = target.machine;
  const name = m.metadata.name;
  const unhealthy = (reason: MhcUnhealthyReason, message: string): TargetEvaluation => ({
    machine: name,
    needsRemediation: true,
    reason,
    message,
    nextCheckMs: 0,
  });
  const wait = (nextCheckMs: number): TargetEvaluation => ({
    machine: name,
    needsRemediation: false,
    nextCheckMs,
  });

  if (m.metadata.annotations?.[AnnotationRemediateMachine] !== undefined) {
    return unhealthy(
      'HasRemediateAnnotation',
      'Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation',
    );
  }
  const gatesClosed = (): boolean =>
    (!isTrue(cluster.conditions, ConditionControlPlaneInitialized) && !isControlPlaneMachine(m)) ||
    !isTrue(cluster.conditions, ConditionInfrastructureReady);
  const nodeRefName = m.status?.nodeRef?.name ?? '';

  if (order === 'v1.11') {
    const failureReason = m.status?.deprecated?.v1beta1?.failureReason ?? m.status?.failureReason;
    const failureMessage =
      m.status?.deprecated?.v1beta1?.failureMessage ?? m.status?.failureMessage;
    if (failureReason !== undefined)
      return unhealthy('MachineHasFailure', `FailureReason: ${failureReason}`);
    if (failureMessage !== undefined)
      return unhealthy('MachineHasFailure', `FailureMessage: ${failureMessage}`);
    if (target.nodeMissing)
      return unhealthy('NodeDeleted', `Health check failed: Node ${nodeRefName} has been deleted`);
    // Cluster not ready: not judged; the Cluster's own update will trigger the next look.
    if (gatesClosed()) return wait(0);
    const nextChecks: number[] = [];
    if (target.node === undefined) {
      if (policy.nodeStartupTimeoutMs === 0) return wait(0);
      const since = nodeStartupComparisonTime(target, cluster);
      if (since + policy.nodeStartupTimeoutMs < now) {
        return unhealthy(
          'NodeStartupTimeout',
          `Health check failed: Node failed to report startup in ${formatDuration(policy.nodeStartupTimeoutMs)}`,
        );
      }
      return wait(policy.nodeStartupTimeoutMs - (now - since) + SECOND);
    }
    const msgs = checkConditions(
      policy.unhealthyNodeConditions,
      (t) => getCondition(target.node, t),
      'Node',
      now,
      nextChecks,
      true,
    );
    if (msgs.length > 0) return unhealthy('UnhealthyNode', `Health check failed: ${msgs[0]}`);
    return wait(minPositive(nextChecks));
  }

  // v1.12 order.
  if (gatesClosed()) return wait(0);
  const nextChecks: number[] = [];
  const machineMsgs = checkConditions(
    policy.unhealthyMachineConditions,
    (t) => condition(machineConditions(m), t),
    'Machine',
    now,
    nextChecks,
    false,
  );
  const join = (first: string[], reason: MhcUnhealthyReason) =>
    unhealthy(
      machineMsgs.length > 0 ? 'UnhealthyMachine' : reason,
      `Health check failed: ${[...first, ...machineMsgs].join('; ')}`,
    );
  if (target.nodeMissing) return join([`Node ${nodeRefName} has been deleted`], 'NodeDeleted');
  if (target.node === undefined) {
    if (machineMsgs.length > 0) return join([], 'UnhealthyMachine');
    if (policy.nodeStartupTimeoutMs === 0) return wait(minPositive(nextChecks));
    const since = nodeStartupComparisonTime(target, cluster);
    if (since + policy.nodeStartupTimeoutMs < now)
      return join(
        [`Node failed to report startup in ${formatDuration(policy.nodeStartupTimeoutMs)}`],
        'NodeStartupTimeout',
      );
    const next = policy.nodeStartupTimeoutMs - (now - since) + SECOND;
    if (next > 0) nextChecks.push(next);
    return wait(minPositive(nextChecks));
  }
  const nodeMsgs = checkConditions(
    policy.unhealthyNodeConditions,
    (t) => getCondition(target.node, t),
    'Node',
    now,
    nextChecks,
    false,
  );
  if (nodeMsgs.length > 0 || machineMsgs.length > 0) return join(nodeMsgs, 'UnhealthyNode');
  return wait(minPositive(nextChecks));
}

export interface MhcEvaluation {
  /** Targets after dropping paused / skip-remediation Machines (sorted names, as status.targets). */
  targets: string[];
  expectedMachines: number;
  currentHealthy: number;
  /** expectedMachines - currentHealthy: pending and node-less machines count too. */
  unhealthyCount: number;
  healthy: TargetEvaluation[];
  unhealthy: TargetEvaluation[];
  pending: TargetEvaluation[];
  remediationAllowed: boolean;
  /** status.remediationsAllowed: 0 when not allowed, else limit - unhealthyCount. */
  remediationsAllowed: number;
  /** The RemediationAllowed condition CAPI sets on the MHC. */
  condition: {
    type: 'RemediationAllowed';
    status: 'True' | 'False';
    reason: 'RemediationAllowed' | 'TooManyUnhealthy';
    message?: string;
  };
  /** Emit RemediationRestricted only when restricted AND some target is unhealthy. */
  restrictedEvent?: string;
  /** Allowed: min positive next check (RequeueAfter). Restricted: undefined and `requeue` true (rate-limited requeue). */
  requeueAfterMs?: number;
  requeue: boolean;
}

/** Paused or skip-remediation Machines are neither judged nor counted. */
export function shouldSkip(m: MhcMachine): string | undefined {
  if (m.metadata.annotations?.[AnnotationPaused] !== undefined)
    return `machine has "${AnnotationPaused}" annotation`;
  if (m.metadata.annotations?.[AnnotationSkipRemediation] !== undefined)
    return `machine has "${AnnotationSkipRemediation}" annotation`;
  return undefined;
}

export function isAllowedRemediation(
  policy: MhcPolicy,
  expected: number,
  currentHealthy: number,
): { allowed: boolean; remediationCount: number; limitText: string } {
  const unhealthy = expected - currentHealthy;
  if (policy.trigger.kind === 'unhealthyRange') {
    return {
      allowed: unhealthy >= policy.trigger.min && unhealthy <= policy.trigger.max,
      remediationCount: policy.trigger.max - unhealthy,
      limitText: `unhealthyRange: ${policy.trigger.text}`,
    };
  }
  // intstr.GetScaledValueFromIntOrPercent(..., roundUp=false): percentages round down.
  const max = scaleCountOrPercent(policy.trigger.value, expected);
  return {
    allowed: unhealthy <= max,
    remediationCount: max - unhealthy,
    limitText: `maxUnhealthy: ${policy.trigger.text}`,
  };
}

export function evaluateMachineHealthCheck(
  machines: readonly MhcTarget[],
  policy: MhcPolicy,
  cluster: MhcCluster,
  nowInput: Date | number,
  order: CapiRuleOrder = 'v1.11',
): MhcEvaluation {
  const now = nowMillis(nowInput);
  const targets = machines.filter((t) => shouldSkip(t.machine) === undefined);
  const healthy: TargetEvaluation[] = [];
  const unhealthy: TargetEvaluation[] = [];
  const pending: TargetEvaluation[] = [];
  const nextChecks: number[] = [];
  for (const t of targets) {
    const e = evaluateTarget(t, policy, cluster, now, order);
    if (e.needsRemediation) unhealthy.push(e);
    else if (e.nextCheckMs > 0) {
      pending.push(e);
      nextChecks.push(e.nextCheckMs);
    } else if (toMillis(t.machine.metadata.deletionTimestamp) === undefined && t.node !== undefined)
      healthy.push(e);
  }
  const expected = targets.length;
  const { allowed, remediationCount, limitText } = isAllowedRemediation(
    policy,
    expected,
    healthy.length,
  );
  const unhealthyCount = expected - healthy.length;
  const base = {
    targets: targets.map((t) => t.machine.metadata.name).sort(),
    expectedMachines: expected,
    currentHealthy: healthy.length,
    unhealthyCount,
    healthy,
    unhealthy,
    pending,
  };
  if (!allowed) {
    const message =
      policy.trigger.kind === 'unhealthyRange'
        ? `Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: ${expected}, unhealthy: ${unhealthy.length}, ${limitText})`
        : `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: ${expected}, unhealthy: ${unhealthy.length}, ${limitText})`;
    return {
      ...base,
      remediationAllowed: false,
      remediationsAllowed: 0,
      condition: {
        type: 'RemediationAllowed',
        status: 'False',
        reason: 'TooManyUnhealthy',
        message,
      },
      ...(unhealthy.length > 0 ? { restrictedEvent: message } : {}),
      requeue: true,
    };
  }
  const next = minPositive(nextChecks);
  return {
    ...base,
    remediationAllowed: true,
    remediationsAllowed: remediationCount,
    condition: { type: 'RemediationAllowed', status: 'True', reason: 'RemediationAllowed' },
    ...(next > 0 ? { requeueAfterMs: next } : {}),
    requeue: false,
  };
}
