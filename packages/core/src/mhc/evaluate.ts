// A whole MachineHealthCheck pass exactly as Cluster API's controller does it
// (internal/controllers/machinehealthcheck: getTargetsFromMHC, healthCheckTargets,
// isAllowedRemediation and the short-circuit in reconcile). Targets are judged by
// judge.ts in the chosen release's rule order. Written from the behaviour, not copied.
import { nowMillis, toMillis } from '../health/time.js';
import { evaluateTarget, type TargetEvaluation } from './judge.js';
import { remediationRestrictedMessage } from './messages.js';
import { DefaultCapiRuleOrder, orderRules, type CapiRuleOrder } from './order.js';
import type { MhcPolicy } from './spec.js';
import {
  AnnotationPaused,
  AnnotationSkipRemediation,
  type MhcCluster,
  type MhcMachine,
  type MhcTarget,
} from './target.js';

/**
 * The outcome of one MachineHealthCheck pass, shaped like the status and condition Cluster API
 * writes.
 */
export interface MhcEvaluation {
  /** Targets after dropping paused / skip-remediation Machines (sorted names, as status.targets). */
  targets: string[];
  /** status.expectedMachines: the targets counted. */
  expectedMachines: number;
  /** status.currentHealthy: targets with a Node, not deleting, judged healthy. */
  currentHealthy: number;
  /** expectedMachines - currentHealthy: pending and node-less machines count too. */
  unhealthyCount: number;
  /** The targets judged healthy. */
  healthy: TargetEvaluation[];
  /** The targets that need remediation. */
  unhealthy: TargetEvaluation[];
  /** Targets not failed yet but to be looked at again (a timeout still running). */
  pending: TargetEvaluation[];
  /** False when the trigger (maxUnhealthy or unhealthyRange) short-circuits remediation. */
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
  /** Allowed: the smallest next check (ctrl.Result RequeueAfter), absent when none. */
  requeueAfterMs?: number;
  /**
   * Restricted: whether the reconcile asks for a rate-limited requeue. v1.12+ (the default)
   * do not: the next look comes from a Machine, Node or Cluster change. Before v1.12 they did.
   */
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

/**
 * Cluster API's isAllowedRemediation: whether remediation may proceed with `expected` targets of
 * which `currentHealthy` are healthy, how many more may be remediated (negative when over the
 * limit), and the limit as text for messages. Percentages round down.
 */
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
  // intstr.GetScaledValueFromIntOrPercent(..., roundUp=false): percentages round down, and
  // may exceed 100% ("150%" of 4 is 6).
  const v = policy.trigger.value;
  const max = 'count' in v ? v.count : Math.floor((v.percent * expected) / 100);
  return {
    allowed: unhealthy <= max,
    remediationCount: max - unhealthy,
    limitText: `maxUnhealthy: ${policy.trigger.text}`,
  };
}

/**
 * One MachineHealthCheck pass over the targets as Cluster API's controller does it in release
 * `order` (default the pinned one): paused and skip-remediation Machines dropped, each target
 * judged, the trigger applied. Pure; `nowInput` is a Date or epoch ms.
 */
export function evaluateMachineHealthCheck(
  machines: readonly MhcTarget[],
  policy: MhcPolicy,
  cluster: MhcCluster,
  nowInput: Date | number,
  order: CapiRuleOrder = DefaultCapiRuleOrder,
): MhcEvaluation {
  const rules = orderRules(order);
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
  const { allowed, remediationCount } = isAllowedRemediation(policy, expected, healthy.length);
  const base = {
    targets: targets.map((t) => t.machine.metadata.name).sort(),
    expectedMachines: expected,
    currentHealthy: healthy.length,
    unhealthyCount: expected - healthy.length,
    healthy,
    unhealthy,
    pending,
  };
  if (!allowed) {
    // The message counts the targets judged unhealthy, not expected - healthy (as CAPI's does).
    const message = remediationRestrictedMessage(policy.trigger, expected, unhealthy.length);
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
      requeue: rules.requeueWhenBlocked,
    };
  }
  const next = nextChecks.length === 0 ? 0 : Math.min(...nextChecks);
  return {
    ...base,
    remediationAllowed: true,
    remediationsAllowed: remediationCount,
    condition: { type: 'RemediationAllowed', status: 'True', reason: 'RemediationAllowed' },
    ...(next > 0 ? { requeueAfterMs: next } : {}),
    requeue: false,
  };
}
