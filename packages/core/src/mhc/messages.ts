// The texts Cluster API's MachineHealthCheck controller writes, so that what noderepair reports
// reads exactly like `kubectl describe machine` for Cluster API's own MHC: the
// HealthCheckSucceeded condition (v1beta2 and the deprecated v1beta1 one), OwnerRemediated /
// ExternallyRemediated, the RemediationRestricted and MachineMarkedUnhealthy events. Written
// from each release's behaviour (internal/controllers/machinehealthcheck), not copied.
import { goDuration } from './duration.js';
import type { OrderRules } from './order.js';
import type { MhcCheck } from './terms.js';

/** HealthCheckSucceeded=False reasons (v1beta2 names; MachineHasFailure only exists in v1beta1). */
export type MhcUnhealthyReason =
  | 'HasRemediateAnnotation'
  | 'MachineHasFailure'
  | 'NodeDeleted'
  | 'NodeStartupTimeout'
  | 'UnhealthyNode'
  | 'UnhealthyMachine';

/** The deprecated v1beta1 HealthCheckSucceeded=False condition written next to the v1beta2 one. */
export interface V1Beta1ConditionText {
  /** The v1beta1 reason (NodeNotFound for a deleted Node). */
  reason: string;
  /** Always Warning. */
  severity: 'Warning';
  /** The v1beta1 message (empty for NodeNotFound). */
  message: string;
}

/** The HealthCheckSucceeded=False message for a Machine with the remediate-machine annotation. */
export const RemediateAnnotationMessage =
  'Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation';
export const RemediateAnnotationV1Beta1: V1Beta1ConditionText = {
  reason: 'HasRemediateMachineAnnotation',
  severity: 'Warning',
  message: 'Marked for remediation via remediate-machine annotation',
};

/** One failed check, as Cluster API words it (v1.12+ include the condition's reason). */
export function conditionFailure(
  on: 'Node' | 'Machine',
  check: MhcCheck,
  reason: string | undefined,
  rules: OrderRules,
): string {
  const because = rules.collectAll ? ` with reason ${reason ?? ''}` : '';
  return `Condition ${check.type} on ${on} is reporting status ${check.status}${because} for more than ${goDuration(check.timeoutMs)}`;
}

export const nodeDeletedFailure = (nodeName: string): string => `Node ${nodeName} has been deleted`;

export const nodeStartupFailure = (timeoutMs: number): string =>
  `Node failed to report startup in ${goDuration(timeoutMs)}`;

/**
 * The v1beta2 HealthCheckSucceeded=False message. v1.12+: every failure as a bullet, machine
 * conditions first; before: the one failure that decided.
 */
export function healthCheckFailedMessage(failures: readonly string[], rules: OrderRules): string {
  if (!rules.collectAll) return `Health check failed: ${failures[0] ?? ''}`;
  return `Health check failed:\n${failures.map((f) => `  * ${f}`).join('\n')}`;
}

/**
 * The v1beta1 HealthCheckSucceeded=False condition. v1.12+: the failures joined with "; "
 * (NodeNotFound keeps its historical empty message). Before v1.12 each reason had its own
 * text, node conditions with a lower-case "node".
 */
export function v1beta1HealthCheckCondition(
  reason: Exclude<MhcUnhealthyReason, 'HasRemediateAnnotation'>,
  failures: readonly string[],
  rules: OrderRules,
  firstNodeCheck?: MhcCheck,
): V1Beta1ConditionText {
  const v1beta1Reason = reason === 'NodeDeleted' ? 'NodeNotFound' : reason;
  let message: string;
  if (v1beta1Reason === 'NodeNotFound') message = '';
  else if (rules.collectAll) message = failures.join('; ');
  else if (reason === 'UnhealthyNode' && firstNodeCheck !== undefined)
    message = `Condition ${firstNodeCheck.type} on node is reporting status ${firstNodeCheck.status} for more than ${goDuration(firstNodeCheck.timeoutMs)}`;
  else message = failures[0] ?? '';
  return { reason: v1beta1Reason, severity: 'Warning', message };
}

/** RemediationAllowed=False message and RemediationRestricted event text. */
export function remediationRestrictedMessage(
  trigger: { kind: 'maxUnhealthy' | 'unhealthyRange'; text: string },
  total: number,
  unhealthy: number,
): string {
  return trigger.kind === 'unhealthyRange'
    ? `Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: ${total}, unhealthy: ${unhealthy}, unhealthyRange: ${trigger.text})`
    : `Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: ${total}, unhealthy: ${unhealthy}, maxUnhealthy: ${trigger.text})`;
}

/** klog.KObj: "namespace/name", or just the name without a namespace. */
const kobj = (o: { name: string; namespace?: string | undefined }): string =>
  o.namespace ? `${o.namespace}/${o.name}` : o.name;

/** The Normal event MachineMarkedUnhealthy Cluster API records on each Machine it marks. */
export function machineMarkedUnhealthyEvent(
  machine: { name: string; namespace?: string | undefined },
  mhc: { name: string; namespace?: string | undefined },
): { type: 'Normal'; reason: 'MachineMarkedUnhealthy'; message: string } {
  return {
    type: 'Normal',
    reason: 'MachineMarkedUnhealthy',
    message: `Machine ${kobj(machine)} has been marked as unhealthy by ${kobj(mhc)}`,
  };
}
