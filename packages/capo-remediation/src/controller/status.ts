// Writing an OpenStackRemediation's status: the condition names, the one status patch (under
// the object's resourceVersion, so two writers can never both act), a hold written once per
// message, and the history helpers. Everything a reconcile step needs travels in RemediationIO.
import type { KubeClient, KubeObject } from '@noderepair/core/kube';
import {
  findMetaCondition,
  setMetaCondition,
  type EventRecorder,
  type MetaCondition,
} from '@noderepair/core/runtime';
import type { NovaMachineProvider } from '@noderepair/openstack';
import type { Attempt, OpenStackRemediation, RemediationStatus } from '../api/index.js';
import type { EndedAttempt } from './ladder.js';
import type { RemediationMetrics } from './metrics.js';
import { OpenStackRemediationResource, type VersionOrder } from './resources.js';
import type { Target } from './target.js';
import type { RecentSecrets } from './recent-secrets.js';
import type { WorkloadClusters } from './workload-clusters.js';

/**
 * Finalizer on each remediation: on deletion the Node we cordoned is uncordoned (and the
 * out-of-service taint removed) before the object goes.
 */
export const FINALIZER = 'remediation.noderepair.dev/cleanup';

/** Condition: the Machine, its server and the cloud credentials were found (False says what is missing). */
export const CONDITION_TARGET_RESOLVED = 'TargetResolved';
/** Condition: the Node is cordoned; its reason tells whether we cordoned it (and so may uncordon it). */
export const CONDITION_CORDONED = 'Cordoned';
/** Condition: the Node was drained before the first action. */
export const CONDITION_DRAINED = 'Drained';
/** Condition: the remediation's result: True once the node stayed Ready; False while in progress, after giving up, or on PermissionDenied. */
export const CONDITION_REMEDIATED = 'Remediated';
/** False while the Machine's Node (found by name) is not the Machine's server: nothing is done. */
export const CONDITION_NODE_VERIFIED = 'NodeVerified';
/** Cordoned reasons: only a node we cordoned is uncordoned. */
export const REASON_CORDONED_BY_US = 'CordonedForRemediation';
/** Cordoned reason when someone else had cordoned the Node: it is left cordoned afterwards. */
export const REASON_ALREADY_CORDONED = 'AlreadyCordoned';
/** Remediated=False reason after giving up: the Machine was handed to Cluster API to replace. */
export const REASON_WAITING_FOR_REPLACEMENT = 'WaitingForReplacement';

/** Look again at an object whose target cannot be resolved yet. */
export const UNRESOLVED_RECHECK_MS = 30_000;

export type Osr = OpenStackRemediation & KubeObject;

/** A condition to set; its lastTransitionTime defaults to now when its status changes. */
export type ConditionInput = Omit<MetaCondition, 'lastTransitionTime'> & {
  lastTransitionTime?: string;
};

/** What each step of a reconcile works with (the reconciler builds one and hands it on). */
export interface RemediationIO {
  /** Client of the management cluster (remediations, Machines, Secrets). */
  readonly client: KubeClient;
  /** Records Events on the remediation and its Machine. */
  readonly events: EventRecorder;
  readonly metrics: RemediationMetrics;
  /** Clock, ms since the epoch. */
  readonly now: () => number;
  /** Passed to the drain executor (how often to look at terminating pods). */
  readonly drainPollIntervalMs: number | undefined;
  /** Where each Machine's Node lives. */
  readonly clusters: Pick<WorkloadClusters<unknown>, 'nodeAccess'>;
  /** Which OpenStackMachine version to read first (the one that answered last). */
  readonly openStackMachineVersions: VersionOrder;
  /** Identity Secrets read recently (shared with the workload clusters' kubeconfig reads). */
  readonly secrets: RecentSecrets;
  /** The Nova provider of the target's cloud (one per client: it remembers accepted ids). */
  provider(t: Target): NovaMachineProvider;
  /** Merge-patches status under the object's resourceVersion; returns the updated object. */
  writeStatus(osr: Osr, f: (s: RemediationStatus) => RemediationStatus): Promise<Osr>;
  /** The conditions of `s` with `c` set, stamped with the object's generation and now. */
  cond(osr: Osr, s: RemediationStatus, c: ConditionInput): MetaCondition[];
}

/** A {@link RemediationIO} over the given dependencies. */
export function remediationIO(deps: Omit<RemediationIO, 'writeStatus' | 'cond'>): RemediationIO {
  return {
    ...deps,
    writeStatus: (osr, f) => writeStatus(deps.client, osr, f),
    cond: (osr, s, c) => conditionsWith(osr, s, c, iso(deps.now())),
  };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function conditionsWith(
  osr: Osr,
  s: RemediationStatus,
  c: ConditionInput,
  now: string,
): MetaCondition[] {
  const generation = osr.metadata?.generation;
  return setMetaCondition(
    s.conditions as MetaCondition[] | undefined,
    { ...c, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
    now,
  );
}

async function writeStatus(
  client: KubeClient,
  osr: Osr,
  f: (s: RemediationStatus) => RemediationStatus,
): Promise<Osr> {
  const prev = osr.status ?? {};
  const next = f(prev);
  const generation = osr.metadata?.generation;
  const status = {
    ...next,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
  // A merge patch keeps fields it does not mention: null removes the ones `f` dropped.
  const removed = Object.fromEntries(
    Object.keys(prev)
      .filter((k) => !(k in status))
      .map((k) => [k, null]),
  );
  const updated = await client.patch<Osr>(
    OpenStackRemediationResource,
    osr.metadata?.name ?? '',
    {
      type: 'merge',
      body: { status: { ...removed, ...status } },
      resourceVersion: osr.metadata?.resourceVersion,
    },
    { namespace: osr.metadata?.namespace, subresource: 'status' },
  );
  return { ...updated, spec: osr.spec, status: status as RemediationStatus } as Osr;
}

/**
 * A remediation that cannot go on yet: condition False with `why` and one Warning event,
 * written once per message (a hold that lasts does not rewrite status or flood events).
 */
export async function holdWith(
  io: RemediationIO,
  osr: Osr,
  why: string,
  c: { condition: string; reason: string; event: string; action: string },
): Promise<void> {
  const prev = findMetaCondition(osr.status?.conditions, c.condition);
  if (prev?.status === 'False' && prev.message === why) return;
  await io.writeStatus(osr, (s) => ({
    ...s,
    phase: s.phase ?? 'Pending',
    conditions: io.cond(osr, s, {
      type: c.condition,
      status: 'False',
      reason: c.reason,
      message: why,
    }),
  }));
  await io.events.record(osr, {
    type: 'Warning',
    reason: c.event,
    action: c.action,
    note: why,
  });
}

/** Action ids derive from the uid (the namespaced name only if the API gave none). */
export function uidOf(osr: Osr): string {
  return osr.metadata?.uid ?? `${osr.metadata?.namespace}/${osr.metadata?.name}`;
}

/** The history with its open attempt closed as `ended` says (unchanged without one). */
export function closeLast(
  history: readonly Attempt[] | undefined,
  ended: EndedAttempt | undefined,
  now: number,
): Attempt[] {
  const list = [...(history ?? [])];
  const last = list.at(-1);
  if (last !== undefined && last.result === 'InProgress' && ended !== undefined)
    list[list.length - 1] = {
      ...last,
      result: ended.result,
      completionTime: iso(now),
      message: truncate(`${last.message ?? ''}; ${ended.message}`),
    };
  return list;
}

/** The history with its last attempt replaced by `f` of it. */
export function updateLast(
  history: readonly Attempt[] | undefined,
  f: (a: Attempt) => Attempt,
): Attempt[] {
  const list = [...(history ?? [])];
  const last = list.at(-1);
  if (last !== undefined) list[list.length - 1] = f(last);
  return list;
}

/** Status messages stay short: Nova's answers can be long. */
export function truncate(s: string): string {
  return s.length > 1024 ? `${s.slice(0, 1021)}...` : s;
}
