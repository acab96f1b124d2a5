// The repair policy: what counts as unhealthy, how long to wait, which repairs to try in
// which order, and the brakes (flap memory, storm guard, pause annotations, dry-run).
// Users write it as YAML/JSON with durations as text ("10m") or seconds; every field has a
// default, so `{}` is a complete, conservative policy. An unknown field is an error naming it
// (a typo must never silently keep a default), checked from the codec's shape at every level.
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { DurationMs } from './time.js';
import { formatValidationErrors } from './errors.js';
import { strict } from '../codec/strict.js';
import {
  CoordinationInput,
  defaultCoordinationPolicy,
  resolveCoordination,
  type CoordinationPolicy,
} from './coordination-policy.js';
import {
  ControlPlaneInput,
  defaultControlPlanePolicy,
  resolveControlPlane,
  type ControlPlanePolicy,
} from './control-plane.js';

/**
 * The repairs the escalation ladder can name, cheapest first by convention. Rebuild reinstalls
 * the machine from an image (the step names it in `image`); Replace hands the machine to
 * whatever replaces machines (so nothing can follow it). Command and Webhook are site steps:
 * the site's own automation (a program, an HTTP endpoint) repairs or replaces the machine,
 * and its exit status or HTTP status is the step's result (provider/site-steps.ts).
 */
export const RemediationStepKind = t.keyof(
  {
    SoftReboot: null,
    HardReboot: null,
    Rebuild: null,
    Replace: null,
    Command: null,
    Webhook: null,
  },
  'RemediationStepKind',
);
/** One of the repairs the ladder can name (see the RemediationStepKind codec). */
export type RemediationStepKind = t.TypeOf<typeof RemediationStepKind>;

const ConditionStatus = t.keyof({ True: null, False: null, Unknown: null }, 'ConditionStatus');

/**
 * What `attempts` counts, in every error about it: not capo-remediation's `retries`, which counts
 * only the further tries (issue 47).
 */
const ATTEMPTS_EXPECTED =
  "an integer >= 1, the tries of this step in all, the first included (attempts: 3 tries it 3 times; capo-remediation's steps[].retries counts only the further tries)";

/** A number whose error says what it counts (the integer >= 1 check is resolveLadder's). */
const AttemptsInput = new t.Type<number, number, unknown>(
  'Attempts',
  t.number.is,
  (u, c) =>
    typeof u === 'number'
      ? t.success(u)
      : t.failure(
          u,
          c,
          `expected ${ATTEMPTS_EXPECTED}, got ${(JSON.stringify(u) ?? String(u)).slice(0, 60)}`,
        ),
  t.identity,
);

const LadderStepInput = t.intersection([
  t.type({ action: RemediationStepKind }),
  t.partial({
    timeout: DurationMs,
    attempts: AttemptsInput,
    image: t.string,
    command: t.array(t.string),
    commandTimeout: DurationMs,
    env: t.array(t.string),
    url: t.string,
    requestTimeout: DurationMs,
  }),
]);

/**
 * What a condition rule does instead of a ladder: NoAction reports the node unhealthy (phase
 * Unhealthy, an Event, `noderepair status`) and starts no repair.
 */
export const ConditionRuleAction = t.keyof({ NoAction: null }, 'ConditionRuleAction');
export type ConditionRuleAction = t.TypeOf<typeof ConditionRuleAction>;

const UnhealthyConditionInput = t.intersection([
  t.type({ type: t.string, status: ConditionStatus }),
  t.partial({
    timeout: DurationMs,
    reason: t.string,
    messageContains: t.string,
    ladder: t.array(LadderStepInput),
    action: ConditionRuleAction,
  }),
]);

/** A count ("3") or a percentage of the total ("40%"), like intstr.IntOrString. */
const IntOrPercent = t.union([t.number, t.string], 'IntOrPercent');

/**
 * What happens to a node that announced a graceful shutdown and has stayed down since:
 * Wait (for ever: someone switched it off on purpose) or FailAfter (treated as failed once
 * it has been down for `failAfter`, and the provider can tell its power state).
 */
export const PoweredOffBehaviour = t.keyof({ Wait: null, FailAfter: null }, 'PoweredOffBehaviour');
export type PoweredOffBehaviour = t.TypeOf<typeof PoweredOffBehaviour>;

/** The policy as written by a user: everything optional. */
export const RepairPolicyInput = t.partial(
  {
    dryRun: t.boolean,
    unhealthyConditions: t.array(UnhealthyConditionInput),
    nodeStartupTimeout: DurationMs,
    staleHeartbeatTimeout: DurationMs,
    minHealthyPeriod: DurationMs,
    retryBackoff: DurationMs,
    ladder: t.array(LadderStepInput),
    flap: t.partial({
      episodes: t.number,
      window: DurationMs,
      escalateWithin: DurationMs,
      settle: DurationMs,
    }),
    stormGuard: t.partial({
      maxUnhealthy: IntOrPercent,
      maxInFlight: t.number,
      minUnhealthyAllowed: t.number,
      failureDomainLabel: t.string,
      maxUnhealthyPerDomain: IntOrPercent,
      recheckInterval: DurationMs,
      cooldown: DurationMs,
      maxStartsPerHour: IntOrPercent,
      minStartsPerHour: t.number,
      latch: t.partial({ afterHeldFor: DurationMs }),
    }),
    drain: t.partial({ enabled: t.boolean, timeout: DurationMs, outOfServiceAfter: DurationMs }),
    annotations: t.partial({ state: t.string, trigger: t.string }),
    shutdown: t.partial({ poweredOff: PoweredOffBehaviour, failAfter: DurationMs }),
    coordination: CoordinationInput,
    controlPlane: ControlPlaneInput,
  },
  'RepairPolicy',
);
/**
 * The policy as written by a user (durations already in ms); resolveRepairPolicy validates it and
 * fills the defaults.
 */
export type RepairPolicyInput = t.TypeOf<typeof RepairPolicyInput>;

/**
 * A node condition that makes the node unhealthy once it has had `status` for longer than the
 * timeout.
 */
export interface UnhealthyCondition {
  /** The condition type (Ready, or any other node condition). */
  type: string;
  /** The status that counts as unhealthy. */
  status: 'True' | 'False' | 'Unknown';
  /** How long the condition must hold before the node is unhealthy, in ms (default 10 min). */
  timeoutMs: number;
  /** Only a condition with exactly this reason matches (absent: any reason). */
  reason?: string;
  /**
   * Only a condition whose message contains this string (case-sensitive substring, not a
   * regular expression: linear time on messages others write) matches (absent: any message).
   * Non-empty.
   */
  messageContains?: string;
  /**
   * The ladder a repair started by this rule climbs (validated as the top-level ladder is);
   * absent: the policy's `ladder`.
   */
  ladder?: LadderStep[];
  /** NoAction: report the node unhealthy, start no repair. Never together with `ladder`. */
  action?: ConditionRuleAction;
}

/** One step of the escalation ladder: which repair, how many attempts, how long each may take. */
export interface LadderStep {
  /** The repair this step sends. */
  action: RemediationStepKind;
  /** After the action completes: how long the node has to become Ready before the attempt counts as failed. */
  timeoutMs: number;
  /** How many attempts of this step before the next step (at least 1; default 1). */
  attempts: number;
  /** The image to rebuild from: present exactly when `action` is Rebuild. */
  image?: string;
  /** Command: the program and its arguments, run without a shell. Present exactly for Command. */
  command?: string[];
  /** Command: how long the program may run before it is killed (the attempt then fails). */
  commandTimeoutMs?: number;
  /**
   * Command: names of the controller's environment variables passed through to the program
   * (it gets only PATH, HOME, LANG, LC_*, TZ and NODEREPAIR_* otherwise).
   */
  env?: string[];
  /** Webhook: the http(s) URL the request is POSTed to. Present exactly for Webhook. */
  url?: string;
  /** Webhook: how long one request may take before the answer counts as lost. */
  requestTimeoutMs?: number;
}

/** A count, or a percentage of a total (scaleCountOrPercent rounds it down). */
export type CountOrPercent = { count: number } | { percent: number };

/**
 * The storm guard's brakes: how many unhealthy nodes stop new repairs, and how many repairs may run
 * at once.
 */
export interface StormGuardPolicy {
  /**
   * Above this many unhealthy nodes (not below minUnhealthyAllowed) no new repair starts; repairs
   * in flight go on. Default 40%.
   */
  maxUnhealthy: CountOrPercent;
  /**
   * Floor for the resolved limit, so that `40%` of a 2-node cluster still lets one node be
   * repaired. Deliberately unlike Cluster API's maxUnhealthy (mhc/ keeps CAPI's exact rule).
   */
  minUnhealthyAllowed: number;
  /**
   * At most this many repairs (Remediating or Verifying, plus nodes other actors are disrupting) at
   * once. Default 1.
   */
  maxInFlight: number;
  /**
   * Node label naming the failure domain (e.g. topology.kubernetes.io/zone) for
   * maxUnhealthyPerDomain.
   */
  failureDomainLabel?: string;
  /** maxUnhealthy per failure domain; needs failureDomainLabel. */
  maxUnhealthyPerDomain?: CountOrPercent;
  /**
   * How often a held node is looked at again, in ms (also paces waits for an unavailable provider).
   * Default 30 s, at least 1 s.
   */
  recheckIntervalMs: number;
  /**
   * After a storm lifts (fleet or failure domain), a node the guard held waits this long
   * before it may start a repair: storms end one node at a time, and the last nodes to
   * recover must not become repairs in the second the count drops under the limit.
   */
  cooldownMs: number;
  /**
   * Rate limit over time: at most this many repairs started in the last hour (a count, or a
   * percentage of the watched nodes, never below minStartsPerHour), per failure domain when
   * failureDomainLabel is set, else for the fleet. Counted from the start times the nodes'
   * repair states keep (the repair in progress and the history), so a restart does not reset
   * it. Absent (the default): no rate limit.
   */
  maxStartsPerHour?: CountOrPercent;
  /** Floor for a percentage maxStartsPerHour (GKE on VMware: max(3, 10%)). Default 1. */
  minStartsPerHour: number;
  /**
   * The latch (circuit breaker): once the storm guard has been tripped (fleet or any failure
   * domain) without a break for afterHeldForMs, no new repair starts until a person resets it
   * (`noderepair reset-latch`, or removing the annotation). Absent (the default): no latch.
   */
  latch?: { afterHeldForMs: number };
}

/** The resolved policy: every field present, durations in ms. */
export interface RepairPolicy {
  /** Decide and report, but cordon, drain, repair and write nothing. */
  dryRun: boolean;
  /** Node conditions that make a node unhealthy; default Ready False or Unknown for 10 min. */
  unhealthyConditions: UnhealthyCondition[];
  /** 0 disables the startup check (as in Cluster API). */
  nodeStartupTimeoutMs: number;
  /** 0 disables; otherwise Ready=True with no heartbeat for this long is unhealthy. */
  staleHeartbeatTimeoutMs: number;
  /**
   * How long a repaired node must stay Ready before the repair counts as a success, in ms. Default
   * 5 min.
   */
  minHealthyPeriodMs: number;
  /** After a failed provider call, how long before the next attempt, in ms. Default 1 min. */
  retryBackoffMs: number;
  /** The escalation ladder, tried in order; default SoftReboot, then HardReboot twice. */
  ladder: LadderStep[];
  /**
   * Flap detection: `episodes` NotReady episodes within `windowMs` make the node unhealthy once
   * its current episode has lasted `settleMs` (so the storm guard sees the rest of a storm first).
   */
  flap: { episodes: number; windowMs: number; escalateWithinMs: number; settleMs: number };
  /** Fleet-wide brakes (storm guard). */
  stormGuard: StormGuardPolicy;
  /**
   * Drain before the repair: whether, for how long (ms, default 15 min), and after how long an
   * unreachable node's evicted pods stop being waited for (ms, default 5 min).
   */
  drain: { enabled: boolean; timeoutMs: number; outOfServiceAfterMs: number };
  /**
   * The annotation keys of the repair state and of the manual trigger (default
   * noderepair.io/repair-state, noderepair.io/repair-now).
   */
  annotations: { state: string; trigger: string };
  /** A node that shut down on purpose: wait for ever (default), or fail it after a while. */
  shutdown: ShutdownPolicy;
  /** Other actors whose disruption of a node makes a repair wait (coordination-policy.ts). */
  coordination: CoordinationPolicy;
  /**
   * Control-plane nodes (labelled node-role.kubernetes.io/control-plane or .../master): left
   * alone unless `repair` is true, and then one at a time, never while another is not Ready,
   * never Replace (control-plane.ts).
   */
  controlPlane: ControlPlanePolicy;
}

export type ShutdownPolicy =
  | { poweredOff: 'Wait' }
  | {
      poweredOff: 'FailAfter';
      /** Down this long since its announced shutdown (and not powered on): failed. */
      failAfterMs: number;
    };

const MIN = 60_000;
/** Defaults of the site steps' own timeouts (the step's `timeout` is the node's, as for any step). */
export const DefaultCommandTimeoutMs = 5 * MIN;
export const DefaultRequestTimeoutMs = 30_000;
/** stormGuard.latch.afterHeldFor when the latch is on and names no time. */
export const DefaultLatchAfterHeldForMs = 30 * MIN;

/**
 * What the empty policy `{}` resolves to: conservative defaults (no Replace step, maxInFlight 1,
 * control-plane nodes and nodes someone else cordoned left alone).
 */
export const defaultRepairPolicy: RepairPolicy = {
  dryRun: false,
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeoutMs: 10 * MIN },
    { type: 'Ready', status: 'Unknown', timeoutMs: 10 * MIN },
  ],
  nodeStartupTimeoutMs: 10 * MIN,
  staleHeartbeatTimeoutMs: 0,
  minHealthyPeriodMs: 5 * MIN,
  retryBackoffMs: 1 * MIN,
  // No Replace: deleting a machine is only safe where something recreates capacity (Cluster
  // Autoscaler, a node group, the user's automation), which noderepair cannot know; a policy
  // opts in by writing a ladder that ends in Replace.
  ladder: [
    { action: 'SoftReboot', timeoutMs: 10 * MIN, attempts: 1 },
    { action: 'HardReboot', timeoutMs: 15 * MIN, attempts: 2 },
  ],
  flap: { episodes: 3, windowMs: 60 * MIN, escalateWithinMs: 60 * MIN, settleMs: 2_000 },
  stormGuard: {
    maxUnhealthy: { percent: 40 },
    minUnhealthyAllowed: 1,
    maxInFlight: 1,
    recheckIntervalMs: 30_000,
    cooldownMs: MIN,
    minStartsPerHour: 1,
  },
  drain: { enabled: true, timeoutMs: 15 * MIN, outOfServiceAfterMs: 5 * MIN },
  annotations: { state: 'noderepair.io/repair-state', trigger: 'noderepair.io/repair-now' },
  shutdown: { poweredOff: 'Wait' },
  coordination: defaultCoordinationPolicy,
  controlPlane: defaultControlPlanePolicy,
};

/**
 * The shutdown policy, or what is wrong with it. failAfter belongs to FailAfter only: with
 * Wait it would be ignored, and a value that is silently ignored is a typo nobody sees.
 */
function resolveShutdown(
  p: { poweredOff?: PoweredOffBehaviour; failAfter?: number } | undefined,
  problems: string[],
): ShutdownPolicy {
  const mode = p?.poweredOff ?? 'Wait';
  if (mode === 'Wait') {
    if (p?.failAfter !== undefined)
      problems.push(
        'shutdown.failAfter: only used with shutdown.poweredOff: FailAfter (the default, Wait, waits for ever)',
      );
    return { poweredOff: 'Wait' };
  }
  if (p?.failAfter === undefined || p.failAfter === 0) {
    problems.push(
      'shutdown.failAfter: shutdown.poweredOff: FailAfter needs failAfter, a duration above 0 (e.g. "2h")',
    );
    return { poweredOff: 'Wait' };
  }
  return { poweredOff: 'FailAfter', failAfterMs: p.failAfter };
}

/** A count ("3" or 3) or a percentage ("40%", at most 100%); Left names `field`. */
export function parseCountOrPercent(
  v: number | string,
  field: string,
): either.Either<string, CountOrPercent> {
  if (typeof v === 'number') {
    return Number.isInteger(v) && v >= 0
      ? either.right({ count: v })
      : either.left(`${field}: expected a non-negative integer or "N%", got ${v}`);
  }
  const m = /^(\d+)%$/.exec(v.trim());
  if (m) {
    const p = Number(m[1]);
    return p <= 100
      ? either.right({ percent: p })
      : either.left(`${field}: a percentage must be at most 100%, got "${v}"`);
  }
  if (/^\d+$/.test(v.trim())) return either.right({ count: Number(v.trim()) });
  return either.left(`${field}: expected a non-negative integer or "N%", got "${v}"`);
}

/** Resolves a count-or-percentage against a total; percentages round DOWN (as intstr does with roundUp=false). */
export function scaleCountOrPercent(v: CountOrPercent, total: number): number {
  return 'count' in v ? v.count : Math.floor((v.percent * total) / 100);
}

function nonNegativeInt(v: number, field: string): either.Either<string, number> {
  return Number.isInteger(v) && v >= 0
    ? either.right(v)
    : either.left(`${field}: expected an integer >= 0, got ${v}`);
}

function positiveInt(v: number, field: string): either.Either<string, number> {
  return Number.isInteger(v) && v >= 1
    ? either.right(v)
    : either.left(`${field}: expected an integer >= 1, got ${v}`);
}

/**
 * What is wrong with a ladder (empty when nothing): Rebuild needs an image and nothing else
 * takes one, Replace comes last, and no action appears twice, because core's action ids are
 * `<repair>/<Action>-<attempt>` and a repeated action would reuse an id the provider has
 * already executed (so it would silently not act). Repeat a step with `attempts` instead.
 */
export function ladderProblems(ladder: readonly LadderStep[], field = 'ladder'): string[] {
  const problems: string[] = [];
  ladder.forEach((s, i) => {
    if (s.action === 'Rebuild' && (s.image === undefined || s.image.trim() === ''))
      problems.push(`${field}[${i}].image: Rebuild needs the image to rebuild from`);
    if (s.action !== 'Rebuild' && s.image !== undefined)
      problems.push(`${field}[${i}].image: only a Rebuild step takes an image, not ${s.action}`);
    problems.push(...siteStepProblems(s, `${field}[${i}]`));
    const first = ladder.findIndex((o) => o.action === s.action);
    if (first !== i)
      problems.push(
        `${field}[${i}].action: ${s.action} is already step ${first + 1}; use attempts to repeat a step`,
      );
  });
  const replaceAt = ladder.findIndex((s) => s.action === 'Replace');
  if (replaceAt !== -1 && replaceAt !== ladder.length - 1)
    problems.push(`${field}: Replace must be the last step (nothing can follow a replacement)`);
  return problems;
}

/**
 * What is wrong with a step's site-step fields: a Command needs its program, a Webhook an
 * http(s) URL, and a field of one kind on another step would be silently ignored, so it is an
 * error naming the field. Messages never repeat the URL: it may carry a token.
 */
function siteStepProblems(s: LadderStep, at: string): string[] {
  const problems: string[] = [];
  const only = (field: string, kind: RemediationStepKind) =>
    problems.push(`${at}.${field}: only a ${kind} step takes ${field}, not ${s.action}`);
  if (s.action === 'Command') {
    if (s.command === undefined || s.command.length === 0 || s.command[0]?.trim() === '')
      problems.push(
        `${at}.command: Command needs the program to run and its arguments, e.g. ["/usr/local/bin/replace-node"]`,
      );
    if (s.commandTimeoutMs !== undefined && s.commandTimeoutMs <= 0)
      problems.push(`${at}.commandTimeout: expected a duration above 0`);
    (s.env ?? []).forEach((name, j) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
        problems.push(
          `${at}.env[${j}]: expected the name of an environment variable (letters, digits, _), e.g. OS_CLOUD`,
        );
    });
  } else {
    if (s.command !== undefined) only('command', 'Command');
    if (s.commandTimeoutMs !== undefined) only('commandTimeout', 'Command');
    if (s.env !== undefined) only('env', 'Command');
  }
  if (s.action === 'Webhook') {
    if (s.url === undefined) problems.push(`${at}.url: Webhook needs the URL to POST to`);
    else if (!isHttpUrl(s.url))
      problems.push(`${at}.url: expected an absolute http:// or https:// URL`);
    if (s.requestTimeoutMs !== undefined && s.requestTimeoutMs <= 0)
      problems.push(`${at}.requestTimeout: expected a duration above 0`);
  } else {
    if (s.url !== undefined) only('url', 'Webhook');
    if (s.requestTimeoutMs !== undefined) only('requestTimeout', 'Webhook');
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A site step's own timeout defaulted, once the ladder is known valid. */
function withSiteDefaults(s: LadderStep): LadderStep {
  if (s.action === 'Command')
    return { ...s, commandTimeoutMs: s.commandTimeoutMs ?? DefaultCommandTimeoutMs };
  if (s.action === 'Webhook')
    return { ...s, requestTimeoutMs: s.requestTimeoutMs ?? DefaultRequestTimeoutMs };
  return s;
}

type LadderStepWritten = t.TypeOf<typeof LadderStepInput>;

/** A written ladder validated (problems named under `field`) with its defaults filled. */
function resolveLadder(
  input: readonly LadderStepWritten[],
  field: string,
  problems: string[],
): LadderStep[] {
  const written: LadderStep[] = input.map((s, i) => {
    const attempts = s.attempts ?? 1;
    const ok = Number.isInteger(attempts) && attempts >= 1;
    if (!ok)
      problems.push(`${field}[${i}].attempts: expected ${ATTEMPTS_EXPECTED}, got ${attempts}`);
    return {
      action: s.action,
      timeoutMs: s.timeout ?? 10 * MIN,
      attempts: ok ? attempts : 1,
      ...(s.image !== undefined ? { image: s.image } : {}),
      ...(s.command !== undefined ? { command: s.command } : {}),
      ...(s.commandTimeout !== undefined ? { commandTimeoutMs: s.commandTimeout } : {}),
      ...(s.env !== undefined ? { env: s.env } : {}),
      ...(s.url !== undefined ? { url: s.url } : {}),
      ...(s.requestTimeout !== undefined ? { requestTimeoutMs: s.requestTimeout } : {}),
    };
  });
  if (written.length === 0) problems.push(`${field}: expected at least one step`);
  problems.push(...ladderProblems(written, field));
  return written.map(withSiteDefaults);
}

/**
 * One `unhealthyConditions` entry validated: a message substring is non-empty, a rule has a
 * ladder or NoAction (or neither: the policy's ladder), never both.
 */
function resolveConditionRule(
  c: t.TypeOf<typeof UnhealthyConditionInput>,
  i: number,
  problems: string[],
): UnhealthyCondition {
  const at = `unhealthyConditions[${i}]`;
  if (c.messageContains !== undefined && c.messageContains === '')
    problems.push(
      `${at}.messageContains: expected a non-empty string the condition's message must contain`,
    );
  if (c.reason !== undefined && c.reason.trim() === '')
    problems.push(`${at}.reason: expected the condition's reason, e.g. KernelHasNoDeadlock`);
  if (c.action === 'NoAction' && c.ladder !== undefined)
    problems.push(`${at}.ladder: a NoAction rule starts no repair, so it takes no ladder`);
  const ladder =
    c.ladder !== undefined ? resolveLadder(c.ladder, `${at}.ladder`, problems) : undefined;
  // Site steps are configured per action kind for the whole controller (provider/site-steps.ts
  // wraps the provider with the top-level ladder's): a rule's own Command or Webhook could
  // not get its own program or URL, so it is refused rather than silently run another's.
  ladder?.forEach((s, j) => {
    if (s.action === 'Command' || s.action === 'Webhook')
      problems.push(
        `${at}.ladder[${j}].action: ${s.action} steps are not supported in a condition rule's ladder yet; write them in the top-level ladder`,
      );
  });
  return {
    type: c.type,
    status: c.status,
    timeoutMs: c.timeout ?? 10 * MIN,
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
    ...(c.messageContains !== undefined ? { messageContains: c.messageContains } : {}),
    ...(ladder !== undefined ? { ladder } : {}),
    ...(c.action !== undefined ? { action: c.action } : {}),
  };
}

/**
 * Two entries with the same key (type, status, reason, messageContains) are refused: a repair
 * records only that key (condition-rules.ts ruleRef), so it would find the first entry's
 * ladder, never the second's.
 */
function duplicateConditionRules(ucs: readonly UnhealthyCondition[]): string[] {
  const problems: string[] = [];
  const seen = new Map<string, number>();
  ucs.forEach((uc, i) => {
    const key = JSON.stringify([uc.type, uc.status, uc.reason ?? null, uc.messageContains ?? null]);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else
      problems.push(
        `unhealthyConditions[${i}]: same type, status, reason and messageContains as unhealthyConditions[${first}]; a node can match only one of them, so merge them into one entry (one timeout, one ladder or NoAction) or tell them apart by reason or messageContains`,
      );
  });
  return problems;
}

/** Validates a user policy and fills the defaults. Left carries a readable message naming the field. */
export function resolveRepairPolicy(input: unknown): either.Either<string, RepairPolicy> {
  return pipe(
    strict(RepairPolicyInput).decode(input ?? {}),
    either.mapLeft((errs) => `invalid repair policy: ${formatValidationErrors(errs)}`),
    either.chain((p) => {
      const d = defaultRepairPolicy;
      const problems: string[] = [];
      const take = <A>(e: either.Either<string, A>, fallback: A): A => {
        if (either.isLeft(e)) {
          problems.push(e.left);
          return fallback;
        }
        return e.right;
      };
      const unhealthyConditions =
        p.unhealthyConditions?.map((c, i) => resolveConditionRule(c, i, problems)) ??
        d.unhealthyConditions;
      problems.push(...duplicateConditionRules(unhealthyConditions));
      const ladder =
        p.ladder === undefined ? d.ladder : resolveLadder(p.ladder, 'ladder', problems);
      const nodeStartupTimeoutMs = p.nodeStartupTimeout ?? d.nodeStartupTimeoutMs;
      if (nodeStartupTimeoutMs !== 0 && nodeStartupTimeoutMs < 30_000) {
        problems.push(
          'nodeStartupTimeout: expected 0 (disabled) or at least 30s, as Cluster API requires',
        );
      }
      const sg = p.stormGuard ?? {};
      const stormGuard: StormGuardPolicy = {
        maxUnhealthy:
          sg.maxUnhealthy === undefined
            ? d.stormGuard.maxUnhealthy
            : take(parseCountOrPercent(sg.maxUnhealthy, 'stormGuard.maxUnhealthy'), { count: 0 }),
        maxInFlight: take(
          positiveInt(sg.maxInFlight ?? d.stormGuard.maxInFlight, 'stormGuard.maxInFlight'),
          1,
        ),
        minUnhealthyAllowed: take(
          nonNegativeInt(
            sg.minUnhealthyAllowed ?? d.stormGuard.minUnhealthyAllowed,
            'stormGuard.minUnhealthyAllowed',
          ),
          0,
        ),
        recheckIntervalMs: sg.recheckInterval ?? d.stormGuard.recheckIntervalMs,
        cooldownMs: sg.cooldown ?? d.stormGuard.cooldownMs,
        minStartsPerHour: take(
          nonNegativeInt(
            sg.minStartsPerHour ?? d.stormGuard.minStartsPerHour,
            'stormGuard.minStartsPerHour',
          ),
          1,
        ),
        ...(sg.maxStartsPerHour !== undefined
          ? {
              maxStartsPerHour: take(
                parseCountOrPercent(sg.maxStartsPerHour, 'stormGuard.maxStartsPerHour'),
                { count: 0 },
              ),
            }
          : {}),
        ...(sg.latch !== undefined
          ? { latch: { afterHeldForMs: sg.latch.afterHeldFor ?? DefaultLatchAfterHeldForMs } }
          : {}),
        ...(sg.failureDomainLabel !== undefined
          ? { failureDomainLabel: sg.failureDomainLabel }
          : {}),
        ...(sg.maxUnhealthyPerDomain !== undefined
          ? {
              maxUnhealthyPerDomain: take(
                parseCountOrPercent(sg.maxUnhealthyPerDomain, 'stormGuard.maxUnhealthyPerDomain'),
                { count: 0 },
              ),
            }
          : {}),
      };
      if (
        stormGuard.maxUnhealthyPerDomain !== undefined &&
        stormGuard.failureDomainLabel === undefined
      ) {
        problems.push(
          'stormGuard.maxUnhealthyPerDomain: needs stormGuard.failureDomainLabel (e.g. topology.kubernetes.io/zone)',
        );
      }
      // The floor applies only to a percentage: anywhere else it would be silently ignored.
      if (
        sg.minStartsPerHour !== undefined &&
        (stormGuard.maxStartsPerHour === undefined || !('percent' in stormGuard.maxStartsPerHour))
      ) {
        problems.push(
          'stormGuard.minStartsPerHour: only a floor for a percentage stormGuard.maxStartsPerHour (e.g. "10%"); with a count or none it would be ignored',
        );
      }
      if (stormGuard.latch !== undefined && stormGuard.latch.afterHeldForMs < 1000)
        problems.push('stormGuard.latch.afterHeldFor: expected at least 1s');
      if (stormGuard.recheckIntervalMs < 1000)
        problems.push('stormGuard.recheckInterval: expected at least 1s');
      const flap = {
        episodes: take(positiveInt(p.flap?.episodes ?? d.flap.episodes, 'flap.episodes'), 1),
        windowMs: p.flap?.window ?? d.flap.windowMs,
        escalateWithinMs: p.flap?.escalateWithin ?? d.flap.escalateWithinMs,
        settleMs: p.flap?.settle ?? d.flap.settleMs,
      };
      const policy: RepairPolicy = {
        dryRun: p.dryRun ?? d.dryRun,
        unhealthyConditions,
        nodeStartupTimeoutMs,
        staleHeartbeatTimeoutMs: p.staleHeartbeatTimeout ?? d.staleHeartbeatTimeoutMs,
        minHealthyPeriodMs: p.minHealthyPeriod ?? d.minHealthyPeriodMs,
        retryBackoffMs: p.retryBackoff ?? d.retryBackoffMs,
        ladder,
        flap,
        stormGuard,
        drain: {
          enabled: p.drain?.enabled ?? d.drain.enabled,
          timeoutMs: p.drain?.timeout ?? d.drain.timeoutMs,
          outOfServiceAfterMs: p.drain?.outOfServiceAfter ?? d.drain.outOfServiceAfterMs,
        },
        annotations: {
          state: p.annotations?.state ?? d.annotations.state,
          trigger: p.annotations?.trigger ?? d.annotations.trigger,
        },
        shutdown: resolveShutdown(p.shutdown, problems),
        coordination: resolveCoordination(p.coordination, problems),
        controlPlane: resolveControlPlane(p.controlPlane, ladder, problems, unhealthyConditions),
      };
      return problems.length > 0
        ? either.left(`invalid repair policy: ${problems.join('; ')}`)
        : either.right(policy);
    }),
  );
}
