// Which Cluster API release's MachineHealthCheck rules to follow. The rules changed between
// releases (read from each release's internal/controllers/machinehealthcheck); an order names
// the first release whose behaviour it reproduces. The default is the release this project
// pins and runs in packages/capi-e2e: v1.13 (v1.13.6).

/**
 * - 'v1.10': Cluster API v1.7 - v1.10. Remediate annotation, Machine failureReason /
 *   failureMessage, deleted Node, cluster gates, node startup, node conditions (the first
 *   expired one decides). Blocked remediation requeues. (v1.9 and v1.10 also write the
 *   v1beta2 condition messages produced here; v1.7 and v1.8 only the v1beta1 ones.)
 * - 'v1.11': Cluster API v1.11. As 'v1.10' without the failureReason / failureMessage rule.
 * - 'v1.12': Cluster API v1.12. Remediate annotation, cluster gates, then machine conditions
 *   and node checks (deleted Node, startup, conditions) all evaluated, every failure reported
 *   (machine conditions first, as a bullet list, condition reasons included). Blocked
 *   remediation returns without a requeue.
 * - 'v1.13': Cluster API v1.13 (the pinned v1.13.6); target judgement as 'v1.12'.
 */
export type CapiRuleOrder = 'v1.10' | 'v1.11' | 'v1.12' | 'v1.13';

/** The pinned release's behaviour. */
export const DefaultCapiRuleOrder: CapiRuleOrder = 'v1.13';

/** Every supported rule order, oldest first. */
export const CapiRuleOrders: readonly CapiRuleOrder[] = ['v1.10', 'v1.11', 'v1.12', 'v1.13'];

/** What changes between the Cluster API releases' MachineHealthCheck rules. */
export interface OrderRules {
  /** Machine failureReason / failureMessage (v1beta1 status) make a Machine unhealthy. */
  failureRule: boolean;
  /** A deleted Node is judged before the cluster gates (and short-circuits everything after it). */
  nodeDeletedBeforeGates: boolean;
  /** spec unhealthyMachineConditions are evaluated. */
  machineConditions: boolean;
  /** All failed checks are reported (bullet list, machine conditions first) instead of the first. */
  collectAll: boolean;
  /** A blocked (short-circuited) reconcile asks for a rate-limited requeue. */
  requeueWhenBlocked: boolean;
}

/** The rules of one release. Throws for an unknown order (reachable from untyped callers only). */
export function orderRules(order: CapiRuleOrder): OrderRules {
  switch (order) {
    case 'v1.10':
      return {
        failureRule: true,
        nodeDeletedBeforeGates: true,
        machineConditions: false,
        collectAll: false,
        requeueWhenBlocked: true,
      };
    case 'v1.11':
      return {
        failureRule: false,
        nodeDeletedBeforeGates: true,
        machineConditions: false,
        collectAll: false,
        requeueWhenBlocked: true,
      };
    case 'v1.12':
    case 'v1.13':
      return {
        failureRule: false,
        nodeDeletedBeforeGates: false,
        machineConditions: true,
        collectAll: true,
        requeueWhenBlocked: false,
      };
    default:
      // Reachable from untyped callers only.
      throw new Error(
        `unknown Cluster API rule order ${JSON.stringify(order)}; expected one of ${CapiRuleOrders.join(', ')}`,
      );
  }
}
