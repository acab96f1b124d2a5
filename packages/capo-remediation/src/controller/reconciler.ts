// The OpenStackRemediation reconciler: the imperative shell around decideLadder.
//
// Exactly-once per attempt: the intent (history entry InProgress, phase Remediating, with a
// stable action id derived from the object's uid, step and attempt) is written to status
// BEFORE Nova is called, and the completion (phase Waiting) after. A controller that dies in
// between finds the intent and replays the SAME action id, which NovaMachineProvider answers
// from Nova's own os-instance-actions before sending anything. A cloud outage leaves the
// intent open (no attempt used, the step clock not started; see cloud.ts). A controller that dies after
// the completion only waits. The object is always read from the API, not the cache, and
// status is written under its resourceVersion, so two writers can never both act.
import { cordonNode, drainNode, OutOfServiceTaint, uncordonNode } from '@noderepair/core/drain';
import {
  NodeResource,
  ForbiddenError,
  NotFoundError,
  type KubeClient,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import {
  addFinalizer,
  findMetaCondition,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  removeMetaCondition,
  setMetaCondition,
  type EventRecorder,
  type MetaCondition,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  systemClock,
  type Clock,
  type RuntimeLogger,
} from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import {
  decodeOpenStackRemediation,
  MAX_HISTORY,
  type Attempt,
  type OpenStackRemediation,
  type RemediationStatus,
} from '../api/index.js';
import { ownerRemediatedPatch } from '../capi/index.js';
import {
  createOpenStackClient,
  NovaMachineProvider,
  type CloudConfig,
  type OpenStackClient,
} from '@noderepair/openstack';
import {
  CONDITION_CLOUD_REACHABLE,
  CONDITION_FENCED,
  REASON_CLOUD_ANSWERED,
  REASON_CLOUD_UNAVAILABLE,
  cloudBackoffMs,
  cloudHoldOffMs,
  fenceVerdict,
  shouldAskFence,
} from './cloud.js';
import {
  CONDITION_NODE_RECOVERED,
  decideLadder,
  type Action,
  type EndedAttempt,
} from './ladder.js';
import { RemediationMetrics } from './metrics.js';
import { machineResource, OpenStackRemediationResource } from './resources.js';
import {
  machineOwner,
  readMachineObject,
  resolveTarget,
  type DefaultIdentity,
  type Target,
} from './target.js';
import { executeStep, fenceOf } from './server-action.js';
import { nodeIdentityMismatch } from './node-identity.js';
import { readNode, type NodeView } from './node-view.js';
import { WorkloadClusters, type NodeAccess } from './workload-clusters.js';

/** Label Cluster API puts on the Machine and on the remediation it creates. */
const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';

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
const UNRESOLVED_RECHECK_MS = 30_000;

/** What a {@link RemediationReconciler} needs; {@link addRemediationController} fills it in. */
export interface RemediationReconcilerOptions {
  /** Client of the management cluster (remediations, Machines, Secrets). */
  readonly client: KubeClient;
  /** Records Events on the remediation and its Machine. */
  readonly events: EventRecorder;
  /** Logger for what the reconciler does outside a reconcile's own logger. */
  readonly log: RuntimeLogger;
  /** Counters to update; a private, unregistered set by default. */
  readonly metrics?: RemediationMetrics;
  /** Builds the OpenStack client for an identityRef's cloud (tests may pass a transport). */
  readonly openStackClient?: (cloud: CloudConfig) => OpenStackClient;
  /** Identity for Machines without an OpenStackMachine identityRef. */
  readonly defaultIdentity?: DefaultIdentity;
  /** core's Clock (default systemClock; tests pass a ManualClock). */
  readonly clock?: Clock;
  /** Passed to the drain executor (how often to look at terminating pods). */
  readonly drainPollIntervalMs?: number;
  /**
   * Where each Machine's Node lives (workload clusters through their kubeconfig Secret).
   * Default: the Secret when there is one, else the management cluster, without watches.
   */
  readonly clusters?: Pick<WorkloadClusters<unknown>, 'nodeAccess'>;
}

type Osr = OpenStackRemediation & KubeObject;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Reconciles one OpenStackRemediation: resolves its server, cordons and drains the Node, then
 * climbs the ladder, persisting each intent in status before calling Nova, so no action is
 * sent twice. Call close() when done to release the OpenStack clients.
 */
export class RemediationReconciler {
  private readonly clients = new Map<string, OpenStackClient>();
  /** One provider per client: it remembers the ids Nova accepted in this process. */
  private readonly providers = new WeakMap<OpenStackClient, NovaMachineProvider>();
  private readonly now: () => number;
  private readonly metrics: RemediationMetrics;
  private readonly clusters: Pick<WorkloadClusters<unknown>, 'nodeAccess'>;

  constructor(private readonly opts: RemediationReconcilerOptions) {
    const clock = opts.clock ?? systemClock;
    this.now = () => clock.now();
    this.metrics = opts.metrics ?? new RemediationMetrics();
    this.clusters =
      opts.clusters ?? new WorkloadClusters({ management: opts.client, log: opts.log });
  }

  /** Closes the cached OpenStack clients. */
  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  /**
   * The reconcile function for a core controller (bound, so it can be passed as is). Reads the
   * object from the API, not a cache; returns when to look again.
   */
  readonly reconcile = async (
    req: ReconcileRequest,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | void> => {
    const { client } = this.opts;
    let raw: Osr;
    try {
      raw = await client.get<Osr>(OpenStackRemediationResource, req.name, {
        namespace: req.namespace,
      });
    } catch (e) {
      if (e instanceof NotFoundError) return;
      throw e;
    }
    // From the apiserver: already pruned against the CRD it serves (see field-validation.ts).
    const decoded = decodeOpenStackRemediation(raw, { fieldValidation: 'Ignore' });
    if (E.isLeft(decoded)) {
      await this.opts.events.record(raw, {
        type: 'Warning',
        reason: 'InvalidSpec',
        action: 'Decode',
        note: decoded.left,
      });
      ctx.log.warn({ osr: req, error: decoded.left }, 'invalid OpenStackRemediation');
      if (isBeingDeleted(raw) && hasFinalizer(raw, FINALIZER))
        await removeFinalizer(client, OpenStackRemediationResource, raw, FINALIZER);
      return;
    }
    const osr = { ...raw, spec: decoded.right.spec, status: decoded.right.status } as Osr;

    if (isBeingDeleted(osr)) return this.finalize(osr, ctx);
    const phase = osr.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    const withFinalizer = hasFinalizer(osr, FINALIZER)
      ? osr
      : await addFinalizer(client, OpenStackRemediationResource, osr, FINALIZER);
    const current = { ...withFinalizer, spec: osr.spec, status: osr.status } as Osr;
    try {
      return await this.progress(current, ctx);
    } catch (e) {
      // RBAC narrower than the shipped role: say so on the object, not only in the log
      // (found by the chaos suite: a role without `patch nodes` only logged, for ever).
      if (e instanceof ForbiddenError) await this.permissionDenied(current, e);
      throw e;
    }
  };

  /** A Warning event and Remediated=False/PermissionDenied carrying the API server's message. */
  private async permissionDenied(osr: Osr, e: ForbiddenError): Promise<void> {
    const message = `permission denied: ${e.message}`;
    await this.opts.events.record(osr, {
      type: 'Warning',
      reason: 'PermissionDenied',
      action: 'Reconcile',
      note: message,
    });
    const prev = findMetaCondition(osr.status?.conditions, CONDITION_REMEDIATED);
    if (prev?.reason === 'PermissionDenied' && prev.message === message) return;
    await this.writeStatus(osr, (s) => ({
      ...s,
      conditions: this.cond(osr, s, {
        type: CONDITION_REMEDIATED,
        status: 'False',
        reason: 'PermissionDenied',
        message,
      }),
    })).catch(() => undefined); // may be the missing permission itself; the event and log remain
  }

  // ---- the ladder ------------------------------------------------------------------------

  private async progress(osr0: Osr, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    let osr = osr0;
    const owner = machineOwner(osr);
    const namespace = osr.metadata?.namespace ?? 'default';
    const target = E.isLeft(owner)
      ? owner
      : await resolveTarget(this.opts.client, namespace, owner.right, this.opts.defaultIdentity);
    // The Node may live in a workload cluster: reached through Cluster API's kubeconfig Secret.
    const access = E.isLeft(target)
      ? target
      : await this.clusters.nodeAccess(namespace, target.right.machine.clusterName);
    if (E.isLeft(target) || E.isLeft(access)) {
      const why = E.isLeft(target) ? target.left : E.isLeft(access) ? access.left : '';
      await this.holdWith(osr, why, {
        condition: CONDITION_TARGET_RESOLVED,
        reason: 'TargetNotResolved',
        event: 'TargetNotResolved',
        action: 'Resolve',
      });
      ctx.log.info({ osr: osr.metadata?.name, reason: why }, 'target not resolved yet');
      return { requeueAfter: UNRESOLVED_RECHECK_MS };
    }
    const t = target.right;
    const nodes = access.right;
    const node = await this.readNodeView(nodes, t.machine.nodeName);
    // Found by name only: before anything touches it (cordon, drain, taint, uncordon, or a
    // reboot judged from its conditions), its providerID must name the target server.
    const mismatch = node && nodeIdentityMismatch(node, t.server.serverId, nodes.via);
    if (mismatch !== undefined) return this.refuseNode(osr, mismatch, ctx);
    if (findMetaCondition(osr.status?.conditions, CONDITION_NODE_VERIFIED) !== undefined)
      await this.writeStatus(osr, (s) => ({
        ...s,
        conditions: removeMetaCondition(
          s.conditions as MetaCondition[] | undefined,
          CONDITION_NODE_VERIFIED,
        ),
      }));
    const fencing = await this.fenceAfterAction(osr, t, nodes, node, ctx);
    if (fencing.requeueAfterMs !== undefined) return { requeueAfter: fencing.requeueAfterMs };
    osr = fencing.osr;
    const recovered = findMetaCondition(osr.status?.conditions, CONDITION_NODE_RECOVERED);
    const d = decideLadder({
      uid: uidOf(osr),
      spec: osr.spec,
      status: osr.status,
      node,
      recoveredSinceMs:
        recovered?.status === 'True' ? Date.parse(recovered.lastTransitionTime) : undefined,
      now: this.now(),
    });
    ctx.log.debug({ osr: osr.metadata?.name, decision: d.kind }, 'decision');
    switch (d.kind) {
      case 'Done':
        return;
      case 'Drain': {
        const drained = await this.drain(osr, t, nodes, node, ctx);
        return this.act(drained, t, node, d.first, undefined, false, ctx);
      }
      case 'Act':
        return this.act(osr, t, node, d, d.ended, false, ctx);
      case 'Replay':
        return this.act(osr, t, node, d, undefined, true, ctx);
      case 'MarkRecovered':
        await this.writeStatus(osr, (s) => ({
          ...s,
          phase: 'Waiting',
          conditions: this.cond(osr, s, {
            type: CONDITION_NODE_RECOVERED,
            status: 'True',
            reason: 'NodeReady',
            message: `node ${node?.name ?? ''} is Ready again (bootID ${node?.bootID ?? 'unknown'}, before the action ${s.bootID ?? 'unknown'}); must stay Ready ${osr.spec.minHealthySeconds}s`,
            // core's healthySince: when the node came back, not when we noticed.
            lastTransitionTime: iso(d.healthySinceMs),
          }),
        }));
        await this.opts.events.record(osr, {
          type: 'Normal',
          reason: 'NodeRecovered',
          action: 'Verify',
          note: `node ${node?.name ?? ''} is Ready again`,
        });
        return { requeueAfter: d.requeueAfterMs };
      case 'MarkNotRecovered':
        await this.writeStatus(osr, (s) => ({
          ...s,
          conditions: this.cond(osr, s, {
            type: CONDITION_NODE_RECOVERED,
            status: 'False',
            reason: 'NodeNotReady',
            message: `node ${node?.name ?? ''} is ${node ? `Ready=${node.ready}` : 'gone'} again`,
          }),
        }));
        return { requeueAfter: d.requeueAfterMs };
      case 'Wait':
        return { requeueAfter: d.requeueAfterMs };
      case 'Succeed':
        return this.succeed(osr, t, nodes, ctx);
      case 'GiveUp':
        return this.giveUp(osr, t, d.message, d.ended, ctx);
    }
  }

  /**
   * A remediation that cannot go on yet: condition False with `why` and one Warning event,
   * written once per message (a hold that lasts does not rewrite status or flood events).
   */
  private async holdWith(
    osr: Osr,
    why: string,
    c: { condition: string; reason: string; event: string; action: string },
  ): Promise<void> {
    const prev = findMetaCondition(osr.status?.conditions, c.condition);
    if (prev?.status === 'False' && prev.message === why) return;
    await this.writeStatus(osr, (s) => ({
      ...s,
      phase: s.phase ?? 'Pending',
      conditions: this.cond(osr, s, {
        type: c.condition,
        status: 'False',
        reason: c.reason,
        message: why,
      }),
    }));
    await this.opts.events.record(osr, {
      type: 'Warning',
      reason: c.event,
      action: c.action,
      note: why,
    });
  }

  /** NodeVerified=False and a Warning event (once per message); no write to the Node. */
  private async refuseNode(osr: Osr, why: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    await this.holdWith(osr, why, {
      condition: CONDITION_NODE_VERIFIED,
      reason: 'ProviderIDMismatch',
      event: 'NodeIdentityMismatch',
      action: 'Verify',
    });
    ctx.log.warn({ osr: osr.metadata?.name, reason: why }, 'node is not the machine: not touched');
    return { requeueAfter: UNRESOLVED_RECHECK_MS };
  }

  private async drain(
    osr: Osr,
    t: Target,
    nodes: NodeAccess,
    node: NodeView | undefined,
    ctx: ReconcileContext,
  ): Promise<Osr> {
    const nodeName = t.machine.nodeName;
    let current = osr;
    if (nodeName === undefined || node === undefined) {
      return this.writeStatus(current, (s) => ({
        ...s,
        phase: 'Draining',
        serverID: t.server.serverId,
        conditions: this.cond(osr, s, {
          type: CONDITION_DRAINED,
          status: 'False',
          reason: 'NodeNotFound',
          message: `Machine ${t.machine.name} has no Node${nodeName ? ` (${nodeName} is gone)` : ''}; nothing to drain`,
        }),
      }));
    }
    // Record who cordoned BEFORE draining, so a deletion mid-flow uncordons only what we cordoned.
    if (findMetaCondition(osr.status?.conditions, CONDITION_CORDONED) === undefined) {
      const r = await cordonNode(nodes.drain, nodeName, ctx.signal);
      current = await this.writeStatus(current, (s) => ({
        ...s,
        phase: 'Draining',
        serverID: t.server.serverId,
        conditions: this.cond(osr, s, {
          type: CONDITION_CORDONED,
          status: 'True',
          reason: r === 'AlreadyCordoned' ? REASON_ALREADY_CORDONED : REASON_CORDONED_BY_US,
          message:
            r === 'AlreadyCordoned'
              ? `node ${nodeName} was already unschedulable; it will be left so`
              : `node ${nodeName} cordoned for remediation`,
        }),
      }));
      await this.opts.events.record(osr, {
        type: 'Normal',
        reason: 'Draining',
        action: 'Drain',
        note: `cordoning and draining node ${nodeName}`,
      });
    }
    const timeoutMs =
      osr.spec.drain.timeoutSeconds > 0
        ? osr.spec.drain.timeoutSeconds * 1000
        : Number.MAX_SAFE_INTEGER;
    // Fenced before the out-of-service taint (issue 21): the drain never adds it. The pods of
    // an unreachable node cannot terminate, so the drain waits half its budget (60 s without
    // one) for the evictions, then the action runs; the taint comes once Nova reports the
    // server fenced (fenceAfterAction), never before and never after a soft reboot.
    const unreachable = node.ready === 'Unknown';
    const budget = osr.spec.drain.timeoutSeconds > 0 ? timeoutMs / 2 : 60_000;
    const result = await drainNode(nodes.drain, {
      node: nodeName,
      timeoutMs: unreachable ? Math.min(timeoutMs, budget) : timeoutMs,
      unreachable: false,
      outOfServiceAfterMs: Number.MAX_SAFE_INTEGER,
      signal: ctx.signal,
      ...(this.opts.drainPollIntervalMs !== undefined
        ? { pollIntervalMs: this.opts.drainPollIntervalMs }
        : {}),
    });
    if (result.outcome === 'Aborted')
      throw new Error(`drain of node ${nodeName} aborted (controller stopping)`);
    ctx.log.info(
      {
        node: nodeName,
        cluster: nodes.via,
        outcome: result.outcome,
        evicted: result.evicted.length,
        remaining: result.remaining.length,
        outOfService: result.outOfServiceTainted,
      },
      'drain finished',
    );
    const message =
      result.outcome === 'Drained'
        ? `node ${nodeName} drained (${result.evicted.length} pod(s) evicted${result.blocked.length ? `, ${result.blocked.length} left by policy` : ''})`
        : result.outcome === 'TimedOut'
          ? `drain of node ${nodeName} timed out after ${osr.spec.drain.timeoutSeconds}s with ${result.remaining.length} pod(s) left; acting anyway`
          : `node ${nodeName} is gone`;
    const out = await this.writeStatus(current, (s) => ({
      ...s,
      phase: 'Draining',
      conditions: this.cond(osr, s, {
        type: CONDITION_DRAINED,
        status: result.outcome === 'Drained' ? 'True' : 'False',
        reason:
          result.outcome === 'Drained'
            ? 'Drained'
            : result.outcome === 'TimedOut'
              ? 'DrainTimedOut'
              : 'NodeNotFound',
        message: `${message}${result.outOfServiceTainted ? '; node.kubernetes.io/out-of-service taint added' : ''}`,
      }),
    }));
    if (result.outcome === 'TimedOut')
      await this.opts.events.record(osr, {
        type: 'Warning',
        reason: 'DrainTimedOut',
        action: 'Drain',
        note: message,
      });
    return out;
  }

  private async act(
    osr: Osr,
    t: Target,
    node: NodeView | undefined,
    action: Action,
    ended: EndedAttempt | undefined,
    replay: boolean,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult> {
    const { at, step, actionId } = action;
    const now = this.now();
    const verb = `${step.type} of server ${t.server.serverId}`;
    let current = osr;
    if (!replay) {
      // 1. Persist the intent. Nothing has been sent yet; if this write fails, nothing ran.
      current = await this.writeStatus(osr, (s) => {
        const history = closeLast(s.history, ended, now);
        const attempt: Attempt = {
          step: at.step,
          type: step.type,
          attempt: at.attempt,
          startTime: iso(now),
          result: 'InProgress',
          message: verb,
        };
        // The boot ID before the action: a different one later proves the server restarted.
        // Absent when the Node is not readable; then a Ready transition must prove it.
        const { bootID: _previous, ...rest } = s;
        return {
          ...rest,
          ...(node?.bootID !== undefined ? { bootID: node.bootID } : {}),
          phase: 'Remediating',
          currentStep: at.step,
          retryCount: at.attempt - 1,
          lastRemediated: iso(now),
          serverID: t.server.serverId,
          history: [...history, attempt].slice(-MAX_HISTORY),
          conditions: removeMetaCondition(
            this.cond(osr, s, {
              type: CONDITION_REMEDIATED,
              status: 'False',
              reason: 'InProgress',
              message: `step ${at.step} (${step.type}) attempt ${at.attempt}`,
            }),
            CONDITION_NODE_RECOVERED,
          ),
        };
      });
      const why = ended ? `; previous attempt ${ended.result}: ${ended.message}` : '';
      const reason =
        at.step === 0 && at.attempt === 1
          ? 'RemediationStarted'
          : at.attempt > 1
            ? 'Retrying'
            : 'Escalating';
      await this.opts.events.record(osr, {
        type: ended ? 'Warning' : 'Normal',
        reason,
        action: step.type,
        note: `${verb} (step ${at.step}, attempt ${at.attempt})${why}`,
      });
    }
    // 2. Execute, idempotent on actionId (a replay asks Nova's records first), but not sooner
    // than the outage backoff allows when the last call went unanswered.
    const outage = findMetaCondition(current.status?.conditions, CONDITION_CLOUD_REACHABLE);
    if (replay && outage?.status === 'False') {
      const holdOff = cloudHoldOffMs(Date.parse(outage.lastTransitionTime), this.now());
      if (holdOff > 0) return { requeueAfter: holdOff };
    }
    const issuedAt = replay ? Date.parse(current.status?.history?.at(-1)?.startTime ?? '') : now;
    const r = await executeStep(
      this.provider(t),
      {
        nodeName: t.machine.nodeName ?? t.machine.name,
        serverId: t.server.serverId,
        step,
        actionId,
        issuedAt: Number.isFinite(issuedAt) ? issuedAt : now,
        replay,
      },
      ctx.signal,
    );
    const counted =
      r.kind === 'Accepted' ? 'Succeeded' : r.kind === 'Rejected' ? 'Failed' : 'Unavailable';
    this.metrics.actions.inc({ type: step.type, result: counted });
    ctx.log.info(
      {
        osr: osr.metadata?.name,
        actionId,
        action: step.type,
        server: t.server.serverId,
        replay,
        result: r.kind,
        ...(r.kind === 'Unavailable' ? { maybeSent: r.maybeSent } : {}),
      },
      'server action',
    );
    // 3. Persist the completion; an outage leaves the intent open (nothing used up).
    if (r.kind === 'Unavailable')
      return this.cloudUnavailable(current, 'execute', r.message, r.retryAfterMs);
    current = await this.cloudAnswered(current);
    if (r.kind === 'Accepted') {
      const accepted = this.now();
      await this.writeStatus(current, (s) => ({
        ...s,
        phase: 'Waiting',
        history: updateLast(s.history, (a) => ({
          ...a,
          acceptedTime: iso(accepted),
          message: truncate(`${a.message ?? ''}; ${r.message}`),
        })),
      }));
      return { requeueAfter: Math.min(step.timeoutSeconds * 1000, 5_000) };
    }
    await this.writeStatus(current, (s) => ({
      ...s,
      phase: 'Remediating',
      history: updateLast(s.history, (a) => ({
        ...a,
        result: 'Failed',
        completionTime: iso(this.now()),
        message: truncate(r.message),
      })),
    }));
    await this.opts.events.record(osr, {
      type: 'Warning',
      reason: 'ActionFailed',
      action: step.type,
      note: `${verb}: ${r.message}`,
    });
    return { requeueAfter: 1_000 };
  }

  // ---- cloud outages and fencing ---------------------------------------------------------

  /**
   * The cloud did not answer: CloudReachable=False (a Warning event when it turns False),
   * a metric, and a requeue with backoff. Nothing else changes: the intent stays open, so no
   * attempt is used and the step's timeout (counted from Nova's acceptance) has not started.
   */
  private async cloudUnavailable(
    osr: Osr,
    operation: 'execute' | 'fence',
    message: string,
    hintMs: number | undefined,
  ): Promise<ReconcileResult> {
    this.metrics.cloudUnavailable.inc({ operation: operation });
    const prev = findMetaCondition(osr.status?.conditions, CONDITION_CLOUD_REACHABLE);
    const text = truncate(
      `the cloud did not answer (${operation}): ${message}; waiting, no attempt used`,
    );
    if (prev?.status !== 'False') {
      await this.writeStatus(osr, (s) => ({
        ...s,
        conditions: this.cond(osr, s, {
          type: CONDITION_CLOUD_REACHABLE,
          status: 'False',
          reason: REASON_CLOUD_UNAVAILABLE,
          message: text,
        }),
      }));
      await this.opts.events.record(osr, {
        type: 'Warning',
        reason: 'CloudUnavailable',
        action: operation === 'execute' ? 'Execute' : 'Fence',
        note: text,
      });
    }
    const since = prev?.status === 'False' ? Date.parse(prev.lastTransitionTime) : this.now();
    return { requeueAfter: cloudBackoffMs(since, this.now(), hintMs) };
  }

  /** Nova answered: CloudReachable=True again (only written when it was False). */
  private async cloudAnswered(osr: Osr): Promise<Osr> {
    const prev = findMetaCondition(osr.status?.conditions, CONDITION_CLOUD_REACHABLE);
    if (prev?.status !== 'False') return osr;
    const out = await this.writeStatus(osr, (s) => ({
      ...s,
      conditions: this.cond(osr, s, {
        type: CONDITION_CLOUD_REACHABLE,
        status: 'True',
        reason: REASON_CLOUD_ANSWERED,
        message: 'Nova answered again',
      }),
    }));
    await this.opts.events.record(osr, {
      type: 'Normal',
      reason: 'CloudAnswered',
      action: 'Execute',
      note: 'the cloud answers again; remediation resumes',
    });
    return out;
  }

  /**
   * After an accepted action that can fence, on a Node that is not Ready: ask Nova whether
   * the server is fenced (SHUTOFF, deleted, HARD reboot finished) or see a new bootID, and
   * only then add node.kubernetes.io/out-of-service (core's judgeFence). Returns a requeue
   * when Nova could not be asked (an outage), else the (maybe updated) object.
   */
  private async fenceAfterAction(
    osr: Osr,
    t: Target,
    nodes: NodeAccess,
    node: NodeView | undefined,
    ctx: ReconcileContext,
  ): Promise<{ osr: Osr; requeueAfterMs?: number }> {
    const fenced = findMetaCondition(osr.status?.conditions, CONDITION_FENCED)?.status === 'True';
    const attempt = shouldAskFence(osr.spec, osr.status, node, fenced);
    if (attempt === undefined || node === undefined) return { osr };
    const status = await fenceOf(
      this.provider(t),
      {
        nodeName: node.name,
        serverId: t.server.serverId,
        step: osr.spec.steps[attempt.step] ?? { type: attempt.type, timeoutSeconds: 0, retries: 0 },
        actionId: `${uidOf(osr)}/step-${attempt.step}/attempt-${attempt.attempt}`,
        issuedAt: Date.parse(attempt.startTime),
      },
      ctx.signal,
    );
    if (status.kind === 'Unavailable') {
      const r = await this.cloudUnavailable(osr, 'fence', status.reason, status.retryAfterMs);
      return { osr, requeueAfterMs: r.requeueAfter ?? 5_000 };
    }
    const current = await this.cloudAnswered(osr);
    const v = fenceVerdict(attempt, status, osr.status?.bootID, node);
    if (!v.fenced) {
      ctx.log.debug({ osr: osr.metadata?.name, reason: v.reason }, 'not fenced yet');
      return { osr: current };
    }
    await nodes.drain.patchNode(node.name, { addTaints: [OutOfServiceTaint] });
    const updated = await this.writeStatus(current, (s) => ({
      ...s,
      conditions: this.cond(osr, s, {
        type: CONDITION_FENCED,
        status: 'True',
        reason: v.how,
        message: truncate(`${v.evidence}; node.kubernetes.io/out-of-service taint added`),
      }),
    }));
    await this.opts.events.record(osr, {
      type: 'Normal',
      reason: 'Fenced',
      action: 'Fence',
      note: truncate(`${v.evidence}; added node.kubernetes.io/out-of-service to node ${node.name}`),
    });
    return { osr: updated };
  }

  private async succeed(
    osr: Osr,
    t: Target,
    nodes: NodeAccess,
    ctx: ReconcileContext,
  ): Promise<void> {
    // Uncordon BEFORE recording success: a terminal phase is never looked at again.
    const skipped = await this.releaseNode(
      osr,
      nodes,
      t.machine.nodeName,
      t.server.serverId,
      ctx.signal,
    );
    if (skipped !== undefined) return void (await this.refuseNode(osr, skipped, ctx));
    const now = this.now();
    await this.writeStatus(osr, (s) => ({
      ...s,
      phase: 'Succeeded',
      history: updateLast(s.history, (a) =>
        a.result === 'InProgress' ? { ...a, result: 'Succeeded', completionTime: iso(now) } : a,
      ),
      conditions: this.cond(osr, s, {
        type: CONDITION_REMEDIATED,
        status: 'True',
        reason: 'NodeHealthy',
        message: `node ${t.machine.nodeName ?? ''} Ready for ${osr.spec.minHealthySeconds}s after the action`,
      }),
    }));
    this.metrics.outcomes.inc({ result: 'Succeeded' });
    ctx.log.info({ osr: osr.metadata?.name, node: t.machine.nodeName }, 'remediation succeeded');
    await this.opts.events.record(osr, {
      type: 'Normal',
      reason: 'RemediationSucceeded',
      action: 'Verify',
      note: `node ${t.machine.nodeName ?? ''} is healthy again; uncordoned`,
    });
  }

  private async giveUp(
    osr: Osr,
    t: Target,
    message: string,
    ended: EndedAttempt | undefined,
    ctx: ReconcileContext,
  ): Promise<void> {
    // Hand the Machine to Cluster API first (idempotent), then record the terminal phase.
    const m = t.machine;
    const patch = ownerRemediatedPatch(t.machineObject, message, new Date(this.now()));
    await this.opts.client.patch(
      machineResource(m.version),
      m.name,
      {
        type: 'merge',
        body: { status: patch.status },
        resourceVersion: patch.metadata.resourceVersion,
      },
      { namespace: m.namespace, subresource: 'status' },
    );
    const now = this.now();
    await this.writeStatus(osr, (s) => ({
      ...s,
      phase: 'Failed',
      history: closeLast(s.history, ended, now),
      conditions: this.cond(osr, s, {
        type: CONDITION_REMEDIATED,
        status: 'False',
        reason: REASON_WAITING_FOR_REPLACEMENT,
        message,
      }),
    }));
    this.metrics.outcomes.inc({ result: 'Failed' });
    ctx.log.warn(
      { osr: osr.metadata?.name, machine: m.name },
      'ladder exhausted; Machine handed to Cluster API',
    );
    const note = `${message}; set OwnerRemediated=False (WaitingForRemediation) on Machine ${m.name}`;
    await this.opts.events.record(osr, {
      type: 'Warning',
      reason: 'RemediationFailed',
      action: 'GiveUp',
      note,
    });
    await this.opts.events.record(t.machineObject, {
      type: 'Warning',
      reason: 'RemediationFailed',
      action: 'GiveUp',
      note,
      related: osr,
    });
  }

  // ---- deletion --------------------------------------------------------------------------

  private async finalize(osr: Osr, ctx: ReconcileContext): Promise<void> {
    if (!hasFinalizer(osr, FINALIZER)) return;
    const namespace = osr.metadata?.namespace ?? 'default';
    let nodeName: string | undefined;
    let skipped: string | undefined;
    if (osr.status?.phase !== 'Succeeded') {
      const owner = machineOwner(osr);
      const machine = E.isRight(owner)
        ? await readMachineObject(this.opts.client, namespace, owner.right)
        : undefined;
      const view = machine !== undefined && E.isRight(machine) ? machine.right.view : undefined;
      // The Machine may already be gone (garbage collection deletes us after it): the label
      // Cluster API put on the remediation still names the cluster.
      const clusterName = view?.clusterName ?? osr.metadata?.labels?.[CLUSTER_NAME_LABEL];
      const nodes = await this.clusters.nodeAccess(namespace, clusterName);
      if (E.isLeft(nodes)) {
        // Never block the deletion on a cluster we cannot reach; say what was left behind.
        skipped = nodes.left;
      } else {
        nodeName =
          view?.nodeName ?? (await findNodeByServer(nodes.right.client, osr.status?.serverID));
        skipped = await this.releaseNode(
          osr,
          nodes.right,
          nodeName,
          osr.status?.serverID,
          ctx.signal,
        );
      }
    }
    await removeFinalizer(this.opts.client, OpenStackRemediationResource, osr, FINALIZER);
    ctx.log.info({ osr: osr.metadata?.name, node: nodeName }, 'cleaned up after deletion');
    await this.opts.events.record(osr, {
      type: skipped ? 'Warning' : 'Normal',
      reason: skipped ? 'CleanupSkipped' : 'CleanedUp',
      action: 'Finalize',
      note: skipped
        ? `the node was not uncordoned: ${skipped}`
        : nodeName
          ? `node ${nodeName} uncordoned and out-of-service taint removed as needed`
          : 'no node to clean up',
    });
  }

  /**
   * Uncordon if we cordoned, and remove the out-of-service taint the drain may have added:
   * only on the Node whose providerID names serverId. Returns why nothing was done, if so.
   */
  private async releaseNode(
    osr: Osr,
    nodes: NodeAccess,
    nodeName: string | undefined,
    serverId: string | undefined,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    if (nodeName === undefined) return undefined;
    const cordoned = findMetaCondition(osr.status?.conditions, CONDITION_CORDONED);
    const ours = cordoned?.reason === REASON_CORDONED_BY_US;
    if (!ours && !osr.spec.drain.outOfServiceTaint) return undefined;
    const n = await nodes.drain.getNode(nodeName, signal);
    if (n === undefined) return undefined;
    // Without a server id we never drained (it is recorded first): nothing of ours to undo.
    if (serverId === undefined) return undefined;
    const mismatch = nodeIdentityMismatch(
      { name: nodeName, providerID: n.spec?.providerID || undefined },
      serverId,
      nodes.via,
    );
    if (mismatch !== undefined) return mismatch;
    if (ours) {
      await uncordonNode(nodes.drain, nodeName, {
        removeOutOfServiceTaint: osr.spec.drain.outOfServiceTaint,
        signal,
      });
    } else if (n.spec?.taints?.some((x) => x.key === 'node.kubernetes.io/out-of-service'))
      await nodes.drain.patchNode(
        nodeName,
        { removeTaintKeys: ['node.kubernetes.io/out-of-service'] },
        signal,
      );
    return undefined;
  }

  // ---- helpers ---------------------------------------------------------------------------

  private async readNodeView(
    nodes: NodeAccess,
    name: string | undefined,
  ): Promise<NodeView | undefined> {
    if (name === undefined) return undefined;
    try {
      return readNode(await nodes.client.get<KubeNode>(NodeResource, name));
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  private provider(t: Target): NovaMachineProvider {
    const c = this.openStack(t);
    let p = this.providers.get(c);
    if (p === undefined) {
      p = new NovaMachineProvider(c.nova);
      this.providers.set(c, p);
    }
    return p;
  }

  private openStack(t: Target): OpenStackClient {
    let c = this.clients.get(t.cloudKey);
    if (c === undefined) {
      // The Secret changed (new resourceVersion) or first use: drop clients for the old content.
      const prefix = t.cloudKey.split('@')[0] ?? '';
      for (const [k, old] of this.clients) {
        if (k.split('@')[0] === prefix) {
          this.clients.delete(k);
          void old.close();
        }
      }
      c = (
        this.opts.openStackClient ??
        ((cloud) => createOpenStackClient(cloud, { logger: this.opts.log }))
      )(t.cloud);
      this.clients.set(t.cloudKey, c);
    }
    return c;
  }

  private cond(
    osr: Osr,
    s: RemediationStatus,
    c: Omit<MetaCondition, 'lastTransitionTime'> & { lastTransitionTime?: string },
  ): MetaCondition[] {
    const generation = osr.metadata?.generation;
    return setMetaCondition(
      s.conditions as MetaCondition[] | undefined,
      { ...c, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
      iso(this.now()),
    );
  }

  /** Merge-patches status under the object's resourceVersion; returns the updated object. */
  private async writeStatus(
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
    const updated = await this.opts.client.patch<Osr>(
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
}

/** The Node whose providerID names the server (when the Machine, and its nodeRef, are gone). */
async function findNodeByServer(
  client: KubeClient,
  serverID: string | undefined,
): Promise<string | undefined> {
  if (serverID === undefined) return undefined;
  let cont: string | undefined;
  do {
    const page = await client.list<KubeNode>(NodeResource, { limit: 500, continue: cont });
    const hit = page.items.find((n) => n.spec?.providerID?.toLowerCase().endsWith(`/${serverID}`));
    if (hit?.metadata?.name) return hit.metadata.name;
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return undefined;
}

/** Action ids derive from the uid (the namespaced name only if the API gave none). */
function uidOf(osr: Osr): string {
  return osr.metadata?.uid ?? `${osr.metadata?.namespace}/${osr.metadata?.name}`;
}

function closeLast(
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

function updateLast(
  history: readonly Attempt[] | undefined,
  f: (a: Attempt) => Attempt,
): Attempt[] {
  const list = [...(history ?? [])];
  const last = list.at(-1);
  if (last !== undefined) list[list.length - 1] = f(last);
  return list;
}

function truncate(s: string): string {
  return s.length > 1024 ? `${s.slice(0, 1021)}...` : s;
}
