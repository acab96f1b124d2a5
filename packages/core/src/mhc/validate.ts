// The admission rules Cluster API v1.13 applies to a MachineHealthCheck (CRD schema, CEL and
// its validating webhook, internal/webhooks/machinehealthcheck.go), plus the checks its
// controller makes when it reads the trigger. Both API versions are validated in their
// v1beta2 form, as the webhook sees a v1beta1 object after conversion. Messages name our
// field and quote Cluster API's wording where users will search for it.
import * as either from 'fp-ts/lib/Either.js';
import type { CountOrPercent } from '../health/policy.js';
import type { LabelSelector, MhcCheck } from './terms.js';

/** At most this many checks per list (CRD maxItems). */
export const MaxConditionChecks = 100;
/** Machine conditions owned by the MHC machinery itself; a check on them is refused (CEL rule). */
export const ForbiddenMachineConditionChecks = [
  'Ready',
  'Available',
  'HealthCheckSucceeded',
  'OwnerRemediated',
  'ExternallyRemediated',
];
export const ClusterNameLabel = 'cluster.x-k8s.io/cluster-name';
const MAX_INT32 = 2 ** 31 - 1;
const MAX_UINT32 = 2 ** 32 - 1;

/**
 * maxUnhealthy / unhealthyLessThanOrEqualTo: the webhook accepts what
 * intstr.GetScaledValueFromIntOrPercent accepts: any integer, or a string that is an integer
 * followed by "%" ("40%", "150%", "-5%"). A string without "%" ("5") is refused.
 */
export function parseIntOrPercent(
  v: number | string,
  field: string,
): either.Either<string, CountOrPercent> {
  const capi = `${field}: must be either an int or a percentage: invalid value for IntOrString`;
  if (typeof v === 'number') {
    return Number.isInteger(v) && Math.abs(v) <= MAX_INT32
      ? either.right({ count: v })
      : either.left(`${field}: expected an integer or a percentage such as "40%", got ${v}`);
  }
  if (!v.endsWith('%'))
    return either.left(
      `${capi}: invalid type: string is not a percentage, got "${v}" (write 5 as a number, or "5%")`,
    );
  const digits = v.slice(0, -1);
  const n = Number(digits);
  if (!/^[+-]?[0-9]+$/.test(digits) || !Number.isSafeInteger(n))
    return either.left(`${capi}: invalid value "${v}": not an integer percentage`);
  return either.right({ percent: n });
}

/** unhealthyRange / unhealthyInRange: "[min-max]" (CRD pattern), both uint32, max >= min (controller). */
export function parseUnhealthyRange(
  text: string,
): either.Either<string, { min: number; max: number }> {
  const m = /^\[([0-9]+)-([0-9]+)\]$/.exec(text);
  if (m === null || text.length > 32)
    return either.left(`unhealthyRange: expected "[min-max]" such as "[3-5]", got "${text}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (min > MAX_UINT32 || max > MAX_UINT32)
    return either.left(`unhealthyRange: values must fit in 32 bits, got "${text}"`);
  if (max < min)
    return either.left(
      `unhealthyRange: max value ${max} cannot be less than min value ${min} for unhealthyRange`,
    );
  return either.right({ min, max });
}

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** The selector rules of the webhook: it parses, is not empty, and names no other cluster. */
export function selectorProblems(selector: LabelSelector, clusterName: string): string[] {
  const problems: string[] = [];
  const labels = selector.matchLabels ?? {};
  const exprs = selector.matchExpressions ?? [];
  exprs.forEach((e, i) => {
    const at = `spec.selector.matchExpressions[${i}]`;
    const n = e.values?.length ?? 0;
    if (!SELECTOR_OPERATORS.includes(e.operator))
      problems.push(`${at}.operator: "${e.operator}" is not a valid label selector operator`);
    else if ((e.operator === 'In' || e.operator === 'NotIn') && n === 0)
      problems.push(`${at}.values: must be specified when operator is ${e.operator}`);
    else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && n > 0)
      problems.push(`${at}.values: may not be specified when operator is ${e.operator}`);
  });
  if (Object.keys(labels).length === 0 && exprs.length === 0)
    problems.push('spec.selector: selector must not be empty');
  const named = labels[ClusterNameLabel];
  if (named !== undefined && named !== clusterName)
    problems.push(
      `spec.selector: cannot specify a cluster selector other than the one specified by ClusterName (${ClusterNameLabel}: "${named}", clusterName: "${clusterName}")`,
    );
  return problems;
}

/** The check lists: at most 100 each, machine-condition types not owned by the MHC itself. */
export function checkProblems(
  node: readonly MhcCheck[],
  machine: readonly MhcCheck[],
  nodeField: string,
  machineField: string,
): string[] {
  const problems: string[] = [];
  if (node.length > MaxConditionChecks)
    problems.push(`${nodeField}: at most ${MaxConditionChecks} items allowed, got ${node.length}`);
  if (machine.length > MaxConditionChecks)
    problems.push(
      `${machineField}: at most ${MaxConditionChecks} items allowed, got ${machine.length}`,
    );
  machine.forEach((c, i) => {
    if (ForbiddenMachineConditionChecks.includes(c.type))
      problems.push(
        `${machineField}[${i}].type: type must not be one of: ${ForbiddenMachineConditionChecks.join(', ')} (type ${c.type} is not allowed)`,
      );
  });
  return problems;
}

/** nodeStartupTimeout: 0 disables, otherwise at least 30 s (webhook; on the truncated seconds). */
export function startupProblems(ms: number, field: string): string[] {
  return ms !== 0 && ms < 30_000 ? [`${field}: must be 0 (disabled) or at least 30s`] : [];
}
