// `noderepair status [NODE]`: what the controller thinks of each node and, for a node that
// is not being repaired, why. Reads the Nodes (and their kube-node-lease Leases, as the
// controller does) and decides them offline with the controller's own rules (health/status.ts);
// it changes nothing. Text is a kubectl-style table; --json is for scripts.
import { parseArgs } from 'node:util';
import * as either from 'fp-ts/lib/Either.js';
import { describeFlagError } from '../codec/args.js';
import { resolveRepairPolicy, type RepairPolicy } from '../health/policy.js';
import { controlPlaneLabel } from '../health/control-plane.js';
import { statusReport, type NodeStatus, type StatusReport } from '../health/status.js';
import { formatDuration, iso } from '../health/time.js';
import { HISTORY_LIMIT } from '../health/history.js';
import type { NodeSnapshot } from '../health/node.js';
import type { ActorHold } from '../health/actor-hold.js';
import { readStateAnnotation } from '../health/state.js';
import { createKubeClient } from '../kube/client-node/index.js';
import { ForbiddenError } from '../kube/errors.js';
import { leaseHolderOf, loadPolicy } from './run.js';
import {
  holdsFromSnapshot,
  ourLeaseHolderFor,
  readActorSnapshot,
  snapshotProblems,
  type ActorSnapshot,
} from '../autorepair/actor-source.js';
import { isInFlight, type LatchState } from '../health/storm-guard.js';
import { LatchAnnotation, LatchStore, latchLeaseName, type LatchRef } from '../autorepair/latch.js';
import { LegacyDisruptionLeaseHolder } from '../autorepair/lease-keeper.js';
import { loadKubeConfig } from '../kube/config/load.js';
import { listAll } from '../kube/pagination.js';
import { LeaseResource, NodeResource } from '../kube/resource.js';
import type { KubeLease, KubeNode } from '../kube/types.js';

export const statusUsage = `usage: noderepair status [NODE] [--json] [--kubeconfig <file>] [--policy <policy.yaml>]
                        [--label-selector <selector>] [--leader-election-namespace <ns>]
                        [--leader-election-id <name>] [--disruption-lease-holder <identity>]

  NODE              report this node only (the storm guard still counts every node), with
                    its last repairs below its line
  --json            one JSON object: the storm guard's counts and every node's status
                    (with its repair history); schemaVersion 1, its fields in the
                    @noderepair/core README
  --kubeconfig      kubeconfig file; default: $KUBECONFIG, else the in-cluster service
                    account, else ~/.kube/config
  --policy          the controller's repair policy (YAML or JSON); default: the defaults
  --label-selector  the controller's --label-selector: only these Nodes are its fleet
  --leader-election-namespace, --leader-election-id, --disruption-lease-holder
                    the controller's own (default as \`noderepair run\`: $POD_NAMESPACE or
                    kube-system, noderepair-autorepair): they name the install's holder identity
                    in the disruption leases; another holder's live lease is a hold`;

const flags = {
  json: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  policy: { type: 'string' },
  'label-selector': { type: 'string' },
  'leader-election-namespace': { type: 'string' },
  'leader-election-id': { type: 'string' },
  'disruption-lease-holder': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface StatusConfig {
  node?: string;
  json: boolean;
  kubeconfigPath?: string;
  policyPath?: string;
  labelSelector?: string;
  /** The controller's --leader-election-namespace, --leader-election-id, --disruption-lease-holder. */
  leaderElectionNamespace?: string;
  leaderElectionId?: string;
  leaseHolder?: string;
  help: boolean;
}

/** Parses `status`'s arguments (pure): at most one NODE, unknown flags are errors naming them. */
export function parseStatusArgs(args: readonly string[]): either.Either<string, StatusConfig> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: flags, strict: true, allowPositionals: true });
  } catch (e) {
    return either.left(describeFlagError(e, flags));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    return either.left(
      `expected at most one NODE, got ${positionals.map((p) => JSON.stringify(p)).join(' ')}`,
    );
  const node = positionals[0];
  return either.right({
    ...(node !== undefined ? { node } : {}),
    json: values.json === true,
    ...(values.kubeconfig !== undefined ? { kubeconfigPath: values.kubeconfig } : {}),
    ...(values.policy !== undefined ? { policyPath: values.policy } : {}),
    ...(values['label-selector'] !== undefined ? { labelSelector: values['label-selector'] } : {}),
    ...(values['leader-election-namespace'] !== undefined
      ? { leaderElectionNamespace: values['leader-election-namespace'] }
      : {}),
    ...(values['leader-election-id'] !== undefined
      ? { leaderElectionId: values['leader-election-id'] }
      : {}),
    ...(values['disruption-lease-holder'] !== undefined
      ? { leaseHolder: values['disruption-lease-holder'] }
      : {}),
    help: values.help === true,
  });
}

/** What the command reads from the cluster. */
export interface StatusSource {
  nodes: NodeSnapshot[];
  /** renewTime of kube-node-lease Leases by node name (empty when not read). */
  leaseRenewTimes: ReadonlyMap<string, string>;
  /** Something could not be read but the report can go on without it (a warning). */
  warnings: string[];
  /** The other actors' marks (kured, NodeMaintenances, medik8s leases), when read. */
  actors?: ActorSnapshot;
  /** The storm guard's latch, read when the policy has one (stormGuard.latch). */
  latch?: LatchState;
}

export interface StatusIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readFile: (path: string) => Promise<string>;
  env?: Record<string, string | undefined>;
  /** The clock (tests); default Date.now. */
  now?: () => number;
  /** Reads the cluster (tests pass an in-memory one); default: the kubeconfig's apiserver. */
  read?: (cfg: StatusConfig, policy: RepairPolicy) => Promise<StatusSource>;
}

/** The Nodes and their Leases from the apiserver the kubeconfig names. */
async function readCluster(
  cfg: StatusConfig,
  policy: RepairPolicy,
  env: Record<string, string | undefined>,
): Promise<StatusSource> {
  const kc = await loadKubeConfig({ path: cfg.kubeconfigPath, env });
  const client = createKubeClient(kc);
  const { items } = await listAll<KubeNode>(client, NodeResource, {
    ...(cfg.labelSelector !== undefined ? { labelSelector: cfg.labelSelector } : {}),
  });
  const leaseRenewTimes = new Map<string, string>();
  const warnings: string[] = [];
  // The controller reads the Lease only when stale heartbeats are judged; so does status.
  if (policy.staleHeartbeatTimeoutMs !== 0) {
    try {
      const leases = await listAll<KubeLease>(client, LeaseResource, {
        namespace: 'kube-node-lease',
      });
      for (const l of leases.items) {
        const name = l.metadata?.name;
        if (name !== undefined && l.spec?.renewTime) leaseRenewTimes.set(name, l.spec.renewTime);
      }
    } catch (e) {
      // Without the Leases the report still stands on the Nodes' own heartbeats.
      const why = e instanceof ForbiddenError ? 'missing permission: ' : '';
      warnings.push(`cannot list Leases in kube-node-lease: ${why}${(e as Error).message}`);
    }
  }
  let actors: ActorSnapshot | undefined;
  try {
    // The same read as the controller's fleet pass; a forbidden mark is a hold it reports.
    actors = await readActorSnapshot(client, policy.coordination);
  } catch (e) {
    warnings.push(`cannot read the other actors' marks: ${(e as Error).message}`);
  }
  // The latch, where `noderepair run` with the same flags keeps it.
  const latch =
    policy.stormGuard.latch !== undefined
      ? await new LatchStore(client, latchRefOf(cfg, env)).read()
      : undefined;
  return {
    nodes: items as NodeSnapshot[],
    leaseRenewTimes,
    warnings,
    ...(actors !== undefined ? { actors } : {}),
    ...(latch !== undefined ? { latch } : {}),
  };
}

/** The latch Lease `noderepair run` with these flags uses (pure). */
export function latchRefOf(
  cfg: Pick<StatusConfig, 'leaderElectionNamespace' | 'leaderElectionId'>,
  env: Record<string, string | undefined>,
): LatchRef {
  return {
    namespace: cfg.leaderElectionNamespace ?? env['POD_NAMESPACE'] ?? 'kube-system',
    name: latchLeaseName(cfg.leaderElectionId ?? 'noderepair-autorepair'),
  };
}

/**
 * Where the latch is and how a person resets it: its Lease, its annotation, and the
 * `noderepair reset-latch` command that finds the same Lease (the namespace always spelt out,
 * the id when it is not the default), so the line can be pasted as it is (pure).
 */
export interface LatchWhere {
  /** The latch Lease (`<leader-election-id>-latch` in the leader-election namespace). */
  lease: LatchRef;
  /** The annotation on it that holds the latch (noderepair.io/latched). */
  annotation: string;
  /** The command that resets it. */
  reset: string;
}

/** The latch's LatchWhere for status flags `cfg` (pure). */
export function latchWhereOf(
  cfg: Pick<StatusConfig, 'leaderElectionNamespace' | 'leaderElectionId'>,
  env: Record<string, string | undefined>,
): LatchWhere {
  const lease = latchRefOf(cfg, env);
  const id =
    cfg.leaderElectionId !== undefined ? ` --leader-election-id ${cfg.leaderElectionId}` : '';
  return {
    lease,
    annotation: LatchAnnotation,
    reset: `noderepair reset-latch --leader-election-namespace ${lease.namespace}${id}`,
  };
}

/**
 * The line saying the latch is set, or cannot be read, naming its Lease and how to reset it;
 * undefined when it is not set (pure).
 */
export function latchLine(latch: LatchState | undefined, where?: LatchWhere): string | undefined {
  if (latch === undefined) return undefined;
  const lease =
    where !== undefined
      ? ` (annotation ${where.annotation} on Lease ${where.lease.namespace}/${where.lease.name})`
      : '';
  const reset = where?.reset ?? 'noderepair reset-latch';
  return latch.kind === 'latched'
    ? `storm guard latch SET since ${iso(latch.since)}${lease}: ${latch.reason}. No repair starts until a person resets it: ${reset}`
    : `storm guard latch cannot be read${lease} (${latch.problem}): no repair starts until it can, or a person removes it: ${reset}`;
}

function stepText(s: NodeStatus): string {
  if (s.step === undefined) return '-';
  return `${s.step.index}/${s.step.of} ${s.step.action} ${s.step.attempt}/${s.step.attempts}`;
}

function nextText(s: NodeStatus, now: number): string {
  if (s.actsNow) return 'now';
  if (s.nextAt === undefined) return '-';
  return formatDuration(Math.max(0, s.nextAt - now));
}

/**
 * A node whose state annotation cannot be read is not acted on by the controller (it waits for
 * a person): the offline decision, made from a fresh state, is replaced by that (pure).
 */
export function refuseUnreadable(s: NodeStatus, stateKey: string): NodeStatus {
  if (s.stateError === undefined) return s;
  const { nextAt: _nextAt, hold: _hold, step: _step, ...rest } = s;
  return {
    ...rest,
    actsNow: false,
    reason: `not acted on: the repair state annotation ${stateKey} cannot be read; fix or remove it (the controller acts on nothing until then)`,
  };
}

/**
 * For a control-plane node, why noderepair leaves it alone (or how it repairs it when the
 * policy opts in); undefined for any other node (pure).
 */
export function controlPlaneNote(
  node: NodeSnapshot | undefined,
  policy: RepairPolicy,
): string | undefined {
  const label = controlPlaneLabel(node?.metadata?.labels);
  if (label === undefined) return undefined;
  return policy.controlPlane.repair
    ? `control plane (label ${label}): repaired one control-plane node at a time, never while another is not Ready, never with Replace (the policy's controlPlane.repair is true)`
    : `control plane (label ${label}): left alone, noderepair starts no repair on it (the policy's controlPlane.repair is false)`;
}

/**
 * A node whose state cannot be read may be in the middle of a repair: the controller counts it
 * as in flight against maxInFlight (a disrupting hold), and so do the storm counts here (pure).
 */
function unreadableHold(node: NodeSnapshot, stateKey: string): ActorHold[] {
  if (either.isRight(readStateAnnotation(node, stateKey))) return [];
  return [
    {
      actor: 'Unreadable',
      detail: `the repair-state annotation ${stateKey} cannot be read (a repair may be in flight)`,
      disrupting: true,
    },
  ];
}

/**
 * One line per shown node that has a disruption lease: who holds it, and whether that is this
 * install (its holder identity, from the same flags as `noderepair run`) (pure).
 */
export function leaseLines(
  actors: ActorSnapshot | undefined,
  shown: readonly NodeStatus[],
  leaseHolder: string,
): string[] {
  const lines: string[] = [];
  for (const s of shown) {
    const lease = actors?.leases.get(`node-${s.name}`.toLowerCase());
    if (lease === undefined) continue;
    const holder = lease.spec?.holderIdentity ?? '';
    const whose =
      holder === leaseHolder
        ? 'this install'
        : holder === LegacyDisruptionLeaseHolder
          ? `the legacy holder shared by installs before per-install holders; this install is ${leaseHolder}`
          : `not this install (${leaseHolder})`;
    const where = `${lease.metadata?.namespace ?? '?'}/${lease.metadata?.name ?? '?'}`;
    lines.push(`disruption lease ${where}: held by ${holder || 'nobody'} (${whose})`);
  }
  return lines;
}

function reasonText(s: NodeStatus): string {
  const text = s.hold !== undefined ? `held: ${s.hold.message}` : s.reason;
  return s.stateError !== undefined ? `${text} [${s.stateError}]` : text;
}

/** kubectl-style table: columns padded to their widest cell, 3 spaces apart (pure). */
export function formatStatusTable(nodes: readonly NodeStatus[], now: number): string[] {
  return formatTable([
    ['NAME', 'PHASE', 'CAUSE', 'STEP', 'NEXT', 'REASON'],
    ...nodes.map((s) => [s.name, s.phase, s.cause, stepText(s), nextText(s, now), reasonText(s)]),
  ]);
}

/**
 * A node's repair history as a table below its line, oldest first as stored; empty when it
 * has none. CAUSE is the kind only: the (clipped) message is in --json (pure).
 */
export function formatHistoryTable(s: NodeStatus): string[] {
  const history = s.history ?? [];
  if (history.length === 0) return [];
  return formatTable([
    ['ID', 'CAUSE', 'STARTED', 'DURATION', 'STEPS', 'OUTCOME'],
    ...history.map((h) => [
      h.id,
      h.cause.kind,
      iso(h.startedAt),
      formatDuration(Math.max(0, h.durationMs)),
      h.steps.map((st) => `${st.action} ${st.attempts}x ${st.result}`).join(', '),
      h.outcome,
    ]),
  ]);
}

function formatTable(rows: readonly string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
      .join('   ')
      .trimEnd(),
  );
}

/** The version of the --json document's shape (`schemaVersion`). */
export const STATUS_JSON_SCHEMA_VERSION = 1;

/**
 * The --json document: times as RFC 3339 (pure). `leaseHolder`: the install's holder identity
 * in disruption leases, and the other actors' marks that could not be judged (`problems`).
 */
export function statusJson(
  report: StatusReport,
  nodes: readonly NodeStatus[],
  extra: {
    leaseHolder?: string;
    problems?: readonly string[];
    latch?: LatchState;
    /** Where the latch is and how to reset it (named with `latch` and each latch hold). */
    latchWhere?: LatchWhere;
  } = {},
): string {
  const t = (ms: number | undefined) => (ms !== undefined ? iso(ms) : undefined);
  const w = extra.latchWhere;
  const latchWhereJson =
    w !== undefined ? { lease: { ...w.lease }, annotation: w.annotation, reset: w.reset } : {};
  return JSON.stringify({
    // The document's shape (packages/core/README.md, "noderepair status --json"): raised when a
    // field changes meaning or goes away; new fields may appear without it.
    schemaVersion: STATUS_JSON_SCHEMA_VERSION,
    at: iso(report.at),
    ...(extra.leaseHolder !== undefined ? { leaseHolder: extra.leaseHolder } : {}),
    ...(extra.problems !== undefined && extra.problems.length > 0
      ? { problems: extra.problems }
      : {}),
    storm: report.storm,
    ...(extra.latch !== undefined
      ? {
          latch: {
            ...(extra.latch.kind === 'latched'
              ? { set: true, since: iso(extra.latch.since), reason: extra.latch.reason }
              : { set: true, unreadable: extra.latch.problem }),
            ...latchWhereJson,
          },
        }
      : {}),
    nodes: nodes.map((s) => ({
      ...s,
      nextAt: t(s.nextAt),
      ...(s.hold?.kind === 'cooldown' ? { hold: { ...s.hold, until: iso(s.hold.until) } } : {}),
      ...(s.hold?.kind === 'rate' && s.hold.until !== undefined
        ? { hold: { ...s.hold, until: iso(s.hold.until) } }
        : {}),
      ...(s.hold?.kind === 'latch'
        ? { hold: { ...s.hold, since: iso(s.hold.since), ...latchWhereJson } }
        : {}),
      ...(s.hold?.kind === 'actor' && s.hold.until !== undefined
        ? { hold: { ...s.hold, until: iso(s.hold.until) } }
        : {}),
      ...(s.lastRemediation !== undefined
        ? { lastRemediation: { ...s.lastRemediation, endedAt: iso(s.lastRemediation.endedAt) } }
        : {}),
      ...(s.history !== undefined
        ? {
            history: s.history.map((h) => ({
              ...h,
              startedAt: iso(h.startedAt),
              endedAt: iso(h.endedAt),
            })),
          }
        : {}),
    })),
  });
}

/** `noderepair status`; resolves with the exit code (0 ok, 1 cannot read or not found, 2 bad usage). */
export async function statusCommand(args: readonly string[], io: StatusIo): Promise<number> {
  const cfg = parseStatusArgs(args);
  if (either.isLeft(cfg)) {
    io.stderr(`noderepair status: ${cfg.left}\n${statusUsage}`);
    return 2;
  }
  const c = cfg.right;
  if (c.help) {
    io.stdout(statusUsage);
    return 0;
  }
  const holder = leaseHolderOf(
    c.leaseHolder,
    c.leaderElectionNamespace ?? io.env?.['POD_NAMESPACE'] ?? 'kube-system',
    c.leaderElectionId ?? 'noderepair-autorepair',
  );
  if (either.isLeft(holder)) {
    io.stderr(`noderepair status: ${holder.left}\n${statusUsage}`);
    return 2;
  }
  const leaseHolder = holder.right;
  let policy: RepairPolicy;
  if (c.policyPath !== undefined) {
    let text: string;
    try {
      text = await io.readFile(c.policyPath);
    } catch (e) {
      io.stderr(
        `noderepair status: cannot read ${c.policyPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
      return 1;
    }
    // The same reading as `noderepair run --policy`, so both judge by the same policy.
    const p = loadPolicy(text, c.policyPath, false);
    if (either.isLeft(p)) {
      io.stderr(`noderepair status: ${p.left}`);
      return 1;
    }
    policy = p.right.policy;
  } else {
    const p = resolveRepairPolicy({});
    if (either.isLeft(p)) throw new Error(p.left); // the defaults always resolve
    policy = p.right;
  }
  let source: StatusSource;
  try {
    source = await (io.read ?? ((cf, po) => readCluster(cf, po, io.env ?? process.env)))(c, policy);
  } catch (e) {
    // RBAC is the usual reason on a real cluster: say so, so the fix (a ClusterRole that may
    // list nodes) is obvious.
    const why = e instanceof ForbiddenError ? 'missing permission: ' : '';
    io.stderr(`noderepair status: cannot read the cluster: ${why}${(e as Error).message}`);
    return 1;
  }
  for (const w of source.warnings) io.stderr(`noderepair status: warning: ${w}`);
  // Marks the controller cannot read either: each holds every node that wants a repair.
  const problems =
    source.actors !== undefined ? snapshotProblems(source.actors, policy.coordination) : [];
  for (const p of problems)
    io.stderr(
      `noderepair status: warning: ${p} (the controller holds every node that wants a repair until this is fixed)`,
    );
  const now = (io.now ?? Date.now)();
  const actors = source.actors;
  const key = policy.annotations.state;
  const report = statusReport(source.nodes, policy, now, {
    leaseRenewTimes: source.leaseRenewTimes,
    actorHoldsOf: (node, state) => [
      ...(actors !== undefined
        ? holdsFromSnapshot(
            actors,
            policy.coordination,
            {
              name: node.metadata.name,
              node,
              cordonedByUs: state?.remediation?.cordoned === true,
            },
            ourLeaseHolderFor(actors, node.metadata.name, isInFlight(state?.phase), leaseHolder),
            now,
          )
        : []),
      ...unreadableHold(node, key),
    ],
    ...(source.latch !== undefined ? { latch: source.latch } : {}),
  });
  const shown = report.nodes
    .filter((n) => c.node === undefined || n.name === c.node)
    .map((n) => refuseUnreadable(n, key));
  if (c.node !== undefined && shown.length === 0) {
    io.stderr(
      `noderepair status: node "${c.node}" not found${c.labelSelector !== undefined ? ` among the Nodes matching ${c.labelSelector}` : ''}`,
    );
    return 1;
  }
  // Where `noderepair run` with the same flags keeps the latch: named with a latch hold.
  const latchWhere = latchWhereOf(c, io.env ?? process.env);
  if (c.json)
    io.stdout(
      statusJson(report, shown, {
        leaseHolder,
        problems,
        ...(source.latch !== undefined ? { latch: source.latch, latchWhere } : {}),
      }),
    );
  else {
    const latch = latchLine(source.latch, latchWhere);
    if (latch !== undefined) io.stdout(latch);
    for (const line of formatStatusTable(shown, now)) io.stdout(line);
    for (const line of leaseLines(actors, shown, leaseHolder)) io.stdout(line);
    // One NODE on the control plane: how noderepair treats it, even while it is healthy.
    const cp =
      c.node !== undefined
        ? controlPlaneNote(
            source.nodes.find((n) => n.metadata?.name === c.node),
            policy,
          )
        : undefined;
    if (cp !== undefined) io.stdout(cp);
    // One NODE: its history below its line (the fleet listing stays one line per node).
    const history =
      c.node !== undefined && shown[0] !== undefined ? formatHistoryTable(shown[0]) : [];
    if (history.length > 0) {
      io.stdout('');
      io.stdout(`HISTORY (last ${HISTORY_LIMIT} repairs, oldest first)`);
      for (const line of history) io.stdout(line);
    }
  }
  return 0;
}
