// MachineHealthCheck specs (cluster.x-k8s.io v1beta1 and v1beta2) decoded with io-ts and
// normalised into one MhcPolicy, so evaluation never cares which version it came from. A
// v1beta1 spec becomes what Cluster API's conversion stores (timeouts truncated to whole
// seconds, machine conditions kept); both are then validated as its webhook does (validate.ts).
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { formatValidationErrors } from '../health/errors.js';
import type { CountOrPercent } from '../health/policy.js';
import { V1Beta1Timeout } from './duration.js';
import {
  checkProblems,
  parseIntOrPercent,
  parseUnhealthyRange,
  selectorProblems,
  startupProblems,
} from './validate.js';
import { LabelSelectorCodec, type LabelSelector, type MhcCheck } from './terms.js';

const ConditionStatus = t.keyof({ True: null, False: null, Unknown: null }, 'ConditionStatus');

const IntOrString = t.union([t.number, t.string], 'IntOrString');

const CheckV1Beta1 = t.type({ type: t.string, status: ConditionStatus, timeout: V1Beta1Timeout });

/**
 * io-ts codec of a cluster.x-k8s.io/v1beta1 MachineHealthCheck spec; durations are metav1.Duration
 * text, decoded to whole seconds in ms.
 */
export const MachineHealthCheckSpecV1Beta1 = t.intersection(
  [
    t.type({ clusterName: t.string, selector: LabelSelectorCodec }),
    t.partial({
      unhealthyConditions: t.array(CheckV1Beta1),
      // Served by v1beta1 since Cluster API v1.12; the conversion copies it into
      // spec.checks.unhealthyMachineConditions with the timeout truncated to seconds.
      unhealthyMachineConditions: t.array(CheckV1Beta1),
      maxUnhealthy: IntOrString,
      unhealthyRange: t.string,
      nodeStartupTimeout: V1Beta1Timeout,
      remediationTemplate: t.intersection([
        t.type({ kind: t.string, name: t.string }),
        t.partial({ apiVersion: t.string, namespace: t.string }),
      ]),
    }),
  ],
  'MachineHealthCheckSpec(v1beta1)',
);
/** A decoded v1beta1 MachineHealthCheck spec. */
export type MachineHealthCheckSpecV1Beta1 = t.TypeOf<typeof MachineHealthCheckSpecV1Beta1>;

/** A whole number of seconds, as the v1beta2 schema has it (int32, minimum 0). */
const Seconds = new t.Type<number, number, unknown>(
  'Seconds',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0,
  (u, c) =>
    typeof u === 'number' && Number.isInteger(u) && u >= 0 && u <= 2 ** 31 - 1
      ? t.success(u)
      : t.failure(u, c, 'expected a whole number of seconds >= 0'),
  (n) => n,
);

// timeoutSeconds is required by the v1beta2 schema: a check without one is refused rather
// than read as 0 (which would mean "unhealthy at once").
const CheckV1Beta2 = t.type({ type: t.string, status: ConditionStatus, timeoutSeconds: Seconds });

/**
 * io-ts codec of a cluster.x-k8s.io/v1beta2 MachineHealthCheck spec; timeouts are whole seconds and
 * required.
 */
export const MachineHealthCheckSpecV1Beta2 = t.intersection(
  [
    t.type({ clusterName: t.string, selector: LabelSelectorCodec }),
    t.partial({
      checks: t.partial({
        nodeStartupTimeoutSeconds: Seconds,
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
/** A decoded v1beta2 MachineHealthCheck spec. */
export type MachineHealthCheckSpecV1Beta2 = t.TypeOf<typeof MachineHealthCheckSpecV1Beta2>;

/** The two triggers are exclusive: a range, when set, wins over the maximum (as in CAPI). */
export type MhcTrigger =
  | { kind: 'maxUnhealthy'; value: CountOrPercent; text: string }
  | { kind: 'unhealthyRange'; min: number; max: number; text: string };

/** One policy for both API versions: the v1beta2 object Cluster API stores and judges. */
export interface MhcPolicy {
  /** The API version the spec was decoded from. */
  sourceVersion: 'v1beta1' | 'v1beta2';
  /** spec.clusterName. */
  clusterName: string;
  /** spec.selector: which Machines are targets. */
  selector: LabelSelector;
  /** Checks on the Node's conditions. */
  unhealthyNodeConditions: MhcCheck[];
  /** Both versions (v1beta1 unhealthyMachineConditions, v1beta2 checks.unhealthyMachineConditions); judged from Cluster API v1.12. */
  unhealthyMachineConditions: MhcCheck[];
  /** 0 disables the startup check. */
  nodeStartupTimeoutMs: number;
  /** When remediation may proceed (maxUnhealthy, default 100%, or unhealthyRange). */
  trigger: MhcTrigger;
  /**
   * External remediation template; without one the Machine's owner remediates (OwnerRemediated).
   */
  remediationTemplate?: { apiVersion: string; kind: string; name: string; namespace?: string };
}

/** Cluster API's default nodeStartupTimeout: 10 minutes. */
export const DefaultNodeStartupTimeoutMs = 600_000;

interface Fields {
  node: string;
  machine: string;
  startup: string;
  range: string;
  max: string;
}

function triggerFrom(
  range: string | undefined,
  max: number | string | undefined,
  f: Fields,
): either.Either<string, MhcTrigger> {
  if (range !== undefined && range !== '') {
    return pipe(
      parseUnhealthyRange(range),
      either.mapLeft((e) => e.replace(/^unhealthyRange/, f.range)),
      either.map((r) => ({ kind: 'unhealthyRange' as const, ...r, text: range })),
    );
  }
  const value = max ?? '100%';
  return pipe(
    parseIntOrPercent(value, f.max),
    either.map((v) => ({ kind: 'maxUnhealthy' as const, value: v, text: String(value) })),
  );
}

type PolicyBody = Omit<MhcPolicy, 'trigger'>;

function finish(
  body: PolicyBody,
  range: string | undefined,
  max: number | string | undefined,
  f: Fields,
): either.Either<string, MhcPolicy> {
  const problems = [
    ...selectorProblems(body.selector, body.clusterName),
    ...startupProblems(body.nodeStartupTimeoutMs, f.startup),
    ...checkProblems(
      body.unhealthyNodeConditions,
      body.unhealthyMachineConditions,
      f.node,
      f.machine,
    ),
  ];
  const trigger = triggerFrom(range, max, f);
  if (either.isLeft(trigger)) problems.push(trigger.left);
  if (problems.length > 0 || either.isLeft(trigger))
    return either.left(
      `invalid MachineHealthCheck (${body.sourceVersion}): ${problems.join('; ')}`,
    );
  return either.right({ ...body, trigger: trigger.right });
}

/**
 * A decoded v1beta1 spec as the normalised policy Cluster API's conversion would store, validated
 * as its webhook does; Left lists every problem, naming the v1beta1 fields.
 */
export function normaliseV1Beta1(
  spec: MachineHealthCheckSpecV1Beta1,
): either.Either<string, MhcPolicy> {
  const checks = (cs: Array<t.TypeOf<typeof CheckV1Beta1>> | undefined): MhcCheck[] =>
    (cs ?? []).map((c) => ({ type: c.type, status: c.status, timeoutMs: c.timeout }));
  const ref = spec.remediationTemplate;
  return finish(
    {
      sourceVersion: 'v1beta1',
      clusterName: spec.clusterName,
      selector: spec.selector,
      unhealthyNodeConditions: checks(spec.unhealthyConditions),
      unhealthyMachineConditions: checks(spec.unhealthyMachineConditions),
      nodeStartupTimeoutMs: spec.nodeStartupTimeout ?? DefaultNodeStartupTimeoutMs,
      ...(ref !== undefined
        ? {
            remediationTemplate: {
              apiVersion: ref.apiVersion ?? '',
              kind: ref.kind,
              name: ref.name,
              ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
            },
          }
        : {}),
    },
    spec.unhealthyRange,
    spec.maxUnhealthy,
    {
      node: 'spec.unhealthyConditions',
      machine: 'spec.unhealthyMachineConditions',
      startup: 'spec.nodeStartupTimeout',
      range: 'spec.unhealthyRange',
      max: 'spec.maxUnhealthy',
    },
  );
}

/**
 * A decoded v1beta2 spec as the normalised policy, validated as Cluster API's webhook does; Left
 * lists every problem, naming the fields.
 */
export function normaliseV1Beta2(
  spec: MachineHealthCheckSpecV1Beta2,
): either.Either<string, MhcPolicy> {
  const checks = (cs: Array<t.TypeOf<typeof CheckV1Beta2>> | undefined): MhcCheck[] =>
    (cs ?? []).map((c) => ({ type: c.type, status: c.status, timeoutMs: c.timeoutSeconds * 1000 }));
  return finish(
    {
      sourceVersion: 'v1beta2',
      clusterName: spec.clusterName,
      selector: spec.selector,
      unhealthyNodeConditions: checks(spec.checks?.unhealthyNodeConditions),
      unhealthyMachineConditions: checks(spec.checks?.unhealthyMachineConditions),
      nodeStartupTimeoutMs:
        spec.checks?.nodeStartupTimeoutSeconds !== undefined
          ? spec.checks.nodeStartupTimeoutSeconds * 1000
          : DefaultNodeStartupTimeoutMs,
      ...(spec.remediation?.templateRef !== undefined
        ? { remediationTemplate: { ...spec.remediation.templateRef } }
        : {}),
    },
    spec.remediation?.triggerIf?.unhealthyInRange,
    spec.remediation?.triggerIf?.unhealthyLessThanOrEqualTo,
    {
      node: 'spec.checks.unhealthyNodeConditions',
      machine: 'spec.checks.unhealthyMachineConditions',
      startup: 'spec.checks.nodeStartupTimeoutSeconds',
      range: 'spec.remediation.triggerIf.unhealthyInRange',
      max: 'spec.remediation.triggerIf.unhealthyLessThanOrEqualTo',
    },
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
