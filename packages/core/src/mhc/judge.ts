// One target judged exactly as Cluster API's MachineHealthCheck controller does it
// (internal/controllers/machinehealthcheck: needsRemediation, machineChecks, nodeChecks), in
// the rule order of the chosen release (order.ts). Written from the behaviour, not copied;
// judge.test.ts pins each rule. Times are epoch ms; `now` is injected.
import { getCondition } from '../health/node.js';
import { nowMillis, toMillis } from '../health/time.js';
import {
  conditionFailure,
  healthCheckFailedMessage,
  nodeDeletedFailure,
  nodeStartupFailure,
  RemediateAnnotationMessage,
  RemediateAnnotationV1Beta1,
  v1beta1HealthCheckCondition,
  type MhcUnhealthyReason,
  type V1Beta1ConditionText,
} from './messages.js';
import { DefaultCapiRuleOrder, orderRules, type CapiRuleOrder, type OrderRules } from './order.js';
import type { MhcPolicy } from './spec.js';
import type { MhcCheck } from './terms.js';
import {
  AnnotationRemediateMachine,
  ConditionControlPlaneInitialized,
  ConditionInfrastructureReady,
  LabelControlPlane,
  type MhcCluster,
  type MhcCondition,
  type MhcMachine,
  type MhcTarget,
} from './target.js';

/** One target's verdict, as Cluster API's needsRemediation returns it. */
export interface TargetEvaluation {
  /** The Machine's name. */
  machine: string;
  /** The target failed a check and is unhealthy. */
  needsRemediation: boolean;
  /** The HealthCheckSucceeded=False reason (v1beta2 name; 'MachineHasFailure' only in 'v1.10'). */
  reason?: MhcUnhealthyReason;
  /**
   * The HealthCheckSucceeded=False message Cluster API writes on the Machine's v1beta2
   * condition. ('v1.10' failureReason/failureMessage: the v1beta1 text, the only one written.)
   */
  message?: string;
  /** The deprecated v1beta1 HealthCheckSucceeded=False condition Cluster API writes alongside. */
  v1beta1Condition?: V1Beta1ConditionText;
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
/** True for a Machine with the cluster.x-k8s.io/control-plane label. */
export function isControlPlaneMachine(m: MhcMachine): boolean {
  return m.metadata.labels?.[LabelControlPlane] !== undefined;
}
/**
 * The Machine's metav1 (v1beta2) conditions, which Cluster API reads: status.conditions of a
 * v1beta2 Machine, status.v1beta2.conditions of a Machine read through v1beta1.
 */
export function machineConditions(m: MhcMachine): MhcCondition[] | undefined {
  return m.status?.v1beta2?.conditions ?? m.status?.conditions;
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

const minPositive = (xs: number[]): number => {
  const p = xs.filter((x) => x > 0);
  return p.length === 0 ? 0 : Math.min(...p);
};

interface Checked {
  failures: string[];
  /** The checks that failed, in order (the first decides before v1.12). */
  failed: MhcCheck[];
  nextCheckMs: number;
}

/** Each check whose condition has the status: failed once lastTransitionTime + timeout is strictly before now, else looked at again after remaining + 1 s. */
function checkConditions(
  checks: readonly MhcCheck[],
  lookup: (type: string) => MhcCondition | undefined,
  on: 'Node' | 'Machine',
  now: number,
  rules: OrderRules,
): Checked {
  const out: Checked = { failures: [], failed: [], nextCheckMs: 0 };
  const next: number[] = [];
  for (const c of checks) {
    const cond = lookup(c.type);
    if (cond === undefined || cond.status !== c.status) continue;
    const since = toMillis(cond.lastTransitionTime) ?? 0;
    if (since + c.timeoutMs < now) {
      out.failures.push(conditionFailure(on, c, cond.reason, rules));
      out.failed.push(c);
      if (!rules.collectAll) return out; // before v1.12 the first expired condition decides
      continue;
    }
    next.push(c.timeoutMs - (now - since) + SECOND);
  }
  // Once something failed, nothing needs a recheck (CAPI returns 0 with the failures).
  out.nextCheckMs = out.failures.length > 0 ? 0 : minPositive(next);
  return out;
}

/**
 * Judges one target exactly as Cluster API's needsRemediation does in release `order` (default the
 * pinned one): remediate annotation, cluster gates, machine and node checks. Pure; `nowInput` is a
 * Date or epoch ms.
 */
export function evaluateTarget(
  target: MhcTarget,
  policy: MhcPolicy,
  cluster: MhcCluster,
  nowInput: Date | number,
  order: CapiRuleOrder = DefaultCapiRuleOrder,
): TargetEvaluation {
  const rules = orderRules(order);
  const now = nowMillis(nowInput);
  const m = target.machine;
  const name = m.metadata.name;
  const unhealthy = (
    reason: MhcUnhealthyReason,
    message: string,
    v1beta1Condition: V1Beta1ConditionText,
  ): TargetEvaluation => ({
    machine: name,
    needsRemediation: true,
    reason,
    message,
    v1beta1Condition,
    nextCheckMs: 0,
  });
  const failed = (
    reason: Exclude<MhcUnhealthyReason, 'HasRemediateAnnotation'>,
    failures: string[],
    firstNodeCheck?: MhcCheck,
  ): TargetEvaluation =>
    unhealthy(
      reason,
      healthCheckFailedMessage(failures, rules),
      v1beta1HealthCheckCondition(reason, failures, rules, firstNodeCheck),
    );
  const wait = (nextCheckMs: number): TargetEvaluation => ({
    machine: name,
    needsRemediation: false,
    nextCheckMs,
  });

  if (m.metadata.annotations?.[AnnotationRemediateMachine] !== undefined)
    return unhealthy(
      'HasRemediateAnnotation',
      RemediateAnnotationMessage,
      RemediateAnnotationV1Beta1,
    );

  if (rules.failureRule) {
    // v1.10 and before: only the v1beta1 condition is written, with these texts.
    const legacy = m.status?.deprecated?.v1beta1 ?? m.status;
    const text =
      legacy?.failureReason !== undefined
        ? `FailureReason: ${legacy.failureReason}`
        : legacy?.failureMessage !== undefined
          ? `FailureMessage: ${legacy.failureMessage}`
          : undefined;
    if (text !== undefined)
      return unhealthy('MachineHasFailure', text, {
        reason: 'MachineHasFailure',
        severity: 'Warning',
        message: text,
      });
  }

  const nodeRefName = m.status?.nodeRef?.name ?? '';
  if (rules.nodeDeletedBeforeGates && target.nodeMissing)
    return failed('NodeDeleted', [nodeDeletedFailure(nodeRefName)]);

  // Cluster not ready: not judged; the Cluster's own update triggers the next look.
  const gatesClosed =
    (!isTrue(cluster.conditions, ConditionControlPlaneInitialized) && !isControlPlaneMachine(m)) ||
    !isTrue(cluster.conditions, ConditionInfrastructureReady);
  if (gatesClosed) return wait(0);

  // v1.12+: machine conditions first, whatever the node's state.
  const machine = rules.machineConditions
    ? checkConditions(
        policy.unhealthyMachineConditions,
        (t) => condition(machineConditions(m), t),
        'Machine',
        now,
        rules,
      )
    : { failures: [], failed: [], nextCheckMs: 0 };

  const node = nodeChecks(target, policy, cluster, now, rules, nodeRefName);
  if (machine.failures.length === 0 && node.failures.length === 0)
    return wait(minPositive([machine.nextCheckMs, node.nextCheckMs]));
  if (machine.failures.length > 0)
    return failed('UnhealthyMachine', [...machine.failures, ...node.failures]);
  return failed(node.reason as NodeReason, node.failures, node.failed[0]);
}

type NodeReason = 'NodeDeleted' | 'NodeStartupTimeout' | 'UnhealthyNode';

/** The node half: deleted Node, startup timeout when there is no Node yet, node conditions. */
function nodeChecks(
  target: MhcTarget,
  policy: MhcPolicy,
  cluster: MhcCluster,
  now: number,
  rules: OrderRules,
  nodeRefName: string,
): Checked & { reason?: NodeReason } {
  if (target.nodeMissing)
    return {
      reason: 'NodeDeleted',
      failures: [nodeDeletedFailure(nodeRefName)],
      failed: [],
      nextCheckMs: 0,
    };
  if (target.node === undefined) {
    if (policy.nodeStartupTimeoutMs === 0) return { failures: [], failed: [], nextCheckMs: 0 };
    const since = nodeStartupComparisonTime(target, cluster);
    if (since + policy.nodeStartupTimeoutMs < now)
      return {
        reason: 'NodeStartupTimeout',
        failures: [nodeStartupFailure(policy.nodeStartupTimeoutMs)],
        failed: [],
        nextCheckMs: 0,
      };
    return {
      failures: [],
      failed: [],
      nextCheckMs: policy.nodeStartupTimeoutMs - (now - since) + SECOND,
    };
  }
  const checked = checkConditions(
    policy.unhealthyNodeConditions,
    (t) => getCondition(target.node, t),
    'Node',
    now,
    rules,
  );
  return checked.failures.length > 0 ? { ...checked, reason: 'UnhealthyNode' } : checked;
}
