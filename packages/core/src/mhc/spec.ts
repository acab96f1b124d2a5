// MachineHealthCheck specs (cluster.x-k8s.io v1beta1 and v1beta2) decoded with io-ts and
// normalised into one MhcPolicy, so evaluation never cares which version it came from.
import * as t from 'io-ts';
import { either } from 'fp-ts';
import { pipe } from 'fp-ts/lib/function.js';
import { DurationMs } from '../health/time.js';
import { formatValidationErrors } from '../health/errors.js';
import { parseCountOrPercent, type CountOrPercent } from '../health/policy.js';

const ConditionStatus = t.keyof({ True: null, False: null, Unknown: null }, 'ConditionStatus');

const LabelSelector = t.partial({
  matchLabels: t.record(t.string, t.string),
  matchExpressions: t.array(
    t.intersection([
      t.type({ key: t.string, operator: t.string }),
      t.partial({ values: t.array(t.string) }),
    ]),
  ),
});
export type LabelSelector = t.TypeOf<typeof LabelSelector>;

const IntOrString = t.union([t.number, t.string], 'IntOrString');

export const MachineHealthCheckSpecV1Beta1 = t.intersection(
  [
    t.type({ clusterName: t.string, selector: LabelSelector }),
    t.partial({
      unhealthyConditions: t.array(
        t.type({ type: t.string, status: ConditionStatus, timeout: DurationMs }),
      ),
      maxUnhealthy: IntOrString,
      unhealthyRange: t.string,
      nodeStartupTimeout: DurationMs,
      remediationTemplate: t.intersection([
        t.type({ kind: t.string, name: t.string }),
        t.partial({ apiVersion: t.string, namespace: t.string }),
      ]),
    }),
  ],
  'MachineHealthCheckSpec(v1beta1)',
);
export type MachineHealthCheckSpecV1Beta1 = t.TypeOf<typeof MachineHealthCheckSpecV1Beta1>;

const CheckV1Beta2 = t.intersection([
  t.type({ type: t.string, status: ConditionStatus }),
  t.partial({ timeoutSeconds: t.number }),
]);

export const MachineHealthCheckSpecV1Beta2 = t.intersection(
  [
    t.type({ clusterName: t.string, selector: LabelSelector }),
    t.partial({
      checks: t.partial({
        nodeStartupTimeoutSeconds: t.number,
        unhealthyNodeConditions: t.array(CheckV1Beta2),
        unhealthyMachineConditions: t.array(CheckV1Beta2),
      }),
      remediation: t.partial({
        triggerIf: t.partial({
          unhealthyLessThanOrEqualTo: IntOrString,
          unhealthyInRange: t.string,
        }),
        templateRef: t.type({ apiVersion: t.string, kind: t.string, name: t.string }),
      }),
    }),
  ],
  'MachineHealthCheckSpec(v1beta2)',
);
export type MachineHealthCheckSpecV1Beta2 = t.TypeOf<typeof MachineHealthCheckSpecV1Beta2>;

export interface MhcCheck {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  timeoutMs: number;
}

/** The two triggers are exclusive: a range, when set, wins over the maximum (as in CAPI). */
export type MhcTrigger =
  | { kind: 'maxUnhealthy'; value: CountOrPercent; text: string }
  | { kind: 'unhealthyRange'; min: number; max: number; text: string };

/** One policy for both API versions. */
export interface MhcPolicy {
  sourceVersion: 'v1beta1' | 'v1beta2';
  clusterName: string;
  selector: LabelSelector;
  unhealthyNodeConditions: MhcCheck[];
  /** v1beta2 (Cluster API v1.12+) only. */
  unhealthyMachineConditions: MhcCheck[];
  /** 0 disables the startup check. */
  nodeStartupTimeoutMs: number;
  trigger: MhcTrigger;
  remediationTemplate?: { apiVersion: string; kind: string; name: string; namespace?: string };
}

export const DefaultNodeStartupTimeoutMs = 600_000;
export const MaxUnhealthyConditions = 100;
/** Machine conditions owned by the MHC machinery itself; a check on them is refused (CAPI webhook). */
export const ForbiddenMachineConditionChecks = [
  'Ready',
  'Available',
  'HealthCheckSucceeded',
  'OwnerRemediated',
  'ExternallyRemediated',
];

/** "[3-5]" -> {min: 3, max: 5}, with CAPI's rule that max >= min. */
export function parseUnhealthyRange(
  text: string,
): either.Either<string, { min: number; max: number }> {
  const m = /^\[(\d+)-(\d+)\]$/.exec(text);
  if (m === null)
    return either.left(`unhealthyRange: expected "[min-max]" such as "[3-5]", got "${text}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (max < min)
    return either.left(`unhealthyRange: max value ${max} cannot be less than min value ${min}`);
  return either.right({ min, max });
}

function validateCommon(p: MhcPolicy): string[] {
  const problems: string[] = [];
  if (p.nodeStartupTimeoutMs !== 0 && p.nodeStartupTimeoutMs < 30_000)
    problems.push('nodeStartupTimeout: must be 0 (disabled) or at least 30s');
  if (p.unhealthyNodeConditions.length > MaxUnhealthyConditions)
    problems.push(`unhealthy node conditions: at most ${MaxUnhealthyConditions} allowed`);
  for (const c of p.unhealthyMachineConditions) {
    if (ForbiddenMachineConditionChecks.includes(c.type))
      problems.push(`unhealthyMachineConditions: type ${c.type} is not allowed`);
  }
  return problems;
}

function triggerFrom(
  range: string | undefined,
  max: number | string | undefined,
  rangeField: string,
  maxField: string,
): either.Either<string, MhcTrigger> {
  if (range !== undefined && range !== '') {
    return pipe(
      parseUnhealthyRange(range),
      either.mapLeft((e) => e.replace('unhealthyRange', rangeField)),
      either.map((r) => ({ kind: 'unhealthyRange' as const, ...r, text: range })),
    );
  }
  const value = max ?? '100%';
  return pipe(
    parseCountOrPercent(value, maxField),
    either.map((v) => ({ kind: 'maxUnhealthy' as const, value: v, text: String(value) })),
  );
}

function finish(
  p: either.Either<string, MhcPolicy>,
  what: string,
): either.Either<string, MhcPolicy> {
  return pipe(
    p,
    either.chain((policy) => {
      const problems = validateCommon(policy);
      return problems.length > 0 ? either.left(problems.join('; ')) : either.right(policy);
    }),
    either.mapLeft((e) => `invalid MachineHealthCheck ${what}: ${e}`),
  );
}

export function normaliseV1Beta1(
  spec: MachineHealthCheckSpecV1Beta1,
): either.Either<string, MhcPolicy> {
  return finish(
    pipe(
      triggerFrom(
        spec.unhealthyRange,
        spec.maxUnhealthy,
        'spec.unhealthyRange',
        'spec.maxUnhealthy',
      ),
      either.map((trigger) => ({
        sourceVersion: 'v1beta1' as const,
        clusterName: spec.clusterName,
        selector: spec.selector,
        unhealthyNodeConditions: (spec.unhealthyConditions ?? []).map((c) => ({
          type: c.type,
          status: c.status,
          timeoutMs: c.timeout,
        })),
        unhealthyMachineConditions: [],
        nodeStartupTimeoutMs: spec.nodeStartupTimeout ?? DefaultNodeStartupTimeoutMs,
        trigger,
        ...(spec.remediationTemplate !== undefined
          ? {
              remediationTemplate: {
                apiVersion: spec.remediationTemplate.apiVersion ?? '',
                kind: spec.remediationTemplate.kind,
                name: spec.remediationTemplate.name,
                ...(spec.remediationTemplate.namespace !== undefined
                  ? { namespace: spec.remediationTemplate.namespace }
                  : {}),
              },
            }
          : {}),
      })),
    ),
    '(v1beta1)',
  );
}

export function normaliseV1Beta2(
  spec: MachineHealthCheckSpecV1Beta2,
): either.Either<string, MhcPolicy> {
  const checks = (cs: Array<t.TypeOf<typeof CheckV1Beta2>> | undefined): MhcCheck[] =>
    (cs ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      timeoutMs: (c.timeoutSeconds ?? 0) * 1000,
    }));
  return finish(
    pipe(
      triggerFrom(
        spec.remediation?.triggerIf?.unhealthyInRange,
        spec.remediation?.triggerIf?.unhealthyLessThanOrEqualTo,
        'spec.remediation.triggerIf.unhealthyInRange',
        'spec.remediation.triggerIf.unhealthyLessThanOrEqualTo',
      ),
      either.map((trigger) => ({
        sourceVersion: 'v1beta2' as const,
        clusterName: spec.clusterName,
        selector: spec.selector,
        unhealthyNodeConditions: checks(spec.checks?.unhealthyNodeConditions),
        unhealthyMachineConditions: checks(spec.checks?.unhealthyMachineConditions),
        nodeStartupTimeoutMs:
          spec.checks?.nodeStartupTimeoutSeconds !== undefined
            ? spec.checks.nodeStartupTimeoutSeconds * 1000
            : DefaultNodeStartupTimeoutMs,
        trigger,
        ...(spec.remediation?.templateRef !== undefined
          ? { remediationTemplate: { ...spec.remediation.templateRef } }
          : {}),
      })),
    ),
    '(v1beta2)',
  );
}

/** Decodes a whole MachineHealthCheck object of either version into the normalised policy. */
export function decodeMachineHealthCheck(obj: unknown): either.Either<string, MhcPolicy> {
  const apiVersion =
    typeof obj === 'object' && obj !== null && 'apiVersion' in obj
      ? (obj as { apiVersion: unknown }).apiVersion
      : undefined;
  const spec =
    typeof obj === 'object' && obj !== null && 'spec' in obj
      ? (obj as { spec: unknown }).spec
      : undefined;
  if (apiVersion === 'cluster.x-k8s.io/v1beta1') {
    return pipe(
      MachineHealthCheckSpecV1Beta1.decode(spec),
      either.mapLeft(
        (e) => `invalid MachineHealthCheck (v1beta1): ${formatValidationErrors(e, 'spec')}`,
      ),
      either.chain(normaliseV1Beta1),
    );
  }
  if (apiVersion === 'cluster.x-k8s.io/v1beta2') {
    return pipe(
      MachineHealthCheckSpecV1Beta2.decode(spec),
      either.mapLeft(
        (e) => `invalid MachineHealthCheck (v1beta2): ${formatValidationErrors(e, 'spec')}`,
      ),
      either.chain(normaliseV1Beta2),
    );
  }
  return either.left(
    `MachineHealthCheck: expected apiVersion cluster.x-k8s.io/v1beta1 or cluster.x-k8s.io/v1beta2, got ${JSON.stringify(apiVersion)}`,
  );
}
