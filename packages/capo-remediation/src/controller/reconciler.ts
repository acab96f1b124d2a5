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
//
// Each step lives in its own file and writes through RemediationIO (status.ts): locate.ts finds
// and verifies the Machine, server and Node; cordon-drain.ts; action.ts sends one action;
// fence.ts adds the out-of-service taint once Nova reports the server fenced; outcome.ts ends a
// remediation (success, or the Machine handed to Cluster API); release.ts uncordons, also on
// deletion; cloud-status.ts records outages; deadline-check.ts gathers the fresh evidence a
// step's timeout needs before it may escalate (deadline.ts judges it).
import { ForbiddenError, NotFoundError, type KubeClient } from '@noderepair/core/kube';
import {
  addFinalizer,
  findMetaCondition,
  hasFinalizer,
  isBeingDeleted,
  removeFinalizer,
  type EventRecorder,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileResult,
  type RuntimeLogger,
  systemClock,
  type Clock,
} from '@noderepair/core/runtime';
import * as E from 'fp-ts/lib/Either.js';
import { decodeOpenStackRemediation } from '../api/index.js';
import { type CloudConfig, type OpenStackClient } from '@noderepair/openstack';
import { act } from './action.js';
import { drain } from './cordon-drain.js';
import { FENCE_RECHECK_MS, fenceAfterAction } from './fence.js';
import {
  decideWithEvidence,
  holdEscalation,
  holdStoppedAtDeadline,
  releaseEscalationHold,
} from './deadline-check.js';
import { CONDITION_NODE_RECOVERED, WAIT_RECHECK_MS, decideLadder } from './ladder.js';
import { locate, type Located } from './locate.js';
import { RemediationMetrics } from './metrics.js';
import { OpenStackClients } from './openstack-clients.js';
import { canPowerOn, checkPowerBeforeFirstAction } from './power-check.js';
import { giveUp, markNotRecovered, markRecovered, succeed } from './outcome.js';
import { finalize } from './release.js';
import { OpenStackRemediationResource, VersionOrder } from './resources.js';
import {
  CONDITION_REMEDIATED,
  FINALIZER,
  remediationIO,
  uidOf,
  type Osr,
  type RemediationIO,
} from './status.js';
import type { DefaultIdentity } from './target.js';
import { RecentSecrets } from './recent-secrets.js';
import { WorkloadClusters } from './workload-clusters.js';

// The condition names are status.ts's; exported here too, where the package has always had them.
export {
  FINALIZER,
  CONDITION_TARGET_RESOLVED,
  CONDITION_CORDONED,
  CONDITION_DRAINED,
  CONDITION_REMEDIATED,
  CONDITION_NODE_VERIFIED,
  REASON_CORDONED_BY_US,
  REASON_ALREADY_CORDONED,
  REASON_WAITING_FOR_REPLACEMENT,
} from './status.js';

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
  /**
   * The management cluster's Secrets, each read at most once per recheck window; pass the one
   * `clusters` reads through, so both share it. Default: its own, on `client` and `clock`.
   */
  readonly secrets?: RecentSecrets;
}

/**
 * Reconciles one OpenStackRemediation: resolves its server, cordons and drains the Node, then
 * climbs the ladder, persisting each intent in status before calling Nova, so no action is
 * sent twice. Call close() when done to release the OpenStack clients.
 */
export class RemediationReconciler {
  private readonly openStack: OpenStackClients;
  private readonly io: RemediationIO;

  constructor(private readonly opts: RemediationReconcilerOptions) {
    this.openStack = new OpenStackClients(opts.log, opts.openStackClient);
    const clock = opts.clock ?? systemClock;
    const secrets = opts.secrets ?? new RecentSecrets(opts.client, { clock });
    this.io = remediationIO({
      client: opts.client,
      events: opts.events,
      metrics: opts.metrics ?? new RemediationMetrics(),
      now: () => clock.now(),
      drainPollIntervalMs: opts.drainPollIntervalMs,
      clusters:
        opts.clusters ??
        new WorkloadClusters({ management: opts.client, log: opts.log, clock, secrets }),
      provider: (t) => this.openStack.provider(t),
      openStackMachineVersions: new VersionOrder(),
      secrets,
    });
  }

  /** Closes the cached OpenStack clients. */
  async close(): Promise<void> {
    await this.openStack.close();
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

    if (isBeingDeleted(osr)) return finalize(this.io, osr, ctx);
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
    await this.io
      .writeStatus(osr, (s) => ({
        ...s,
        conditions: this.io.cond(osr, s, {
          type: CONDITION_REMEDIATED,
          status: 'False',
          reason: 'PermissionDenied',
          message,
        }),
      }))
      .catch(() => undefined); // may be the missing permission itself; the event and log remain
  }

  /** One step of the ladder: find the Node, fence if due, then do what decideLadder says. */
  private async progress(osr0: Osr, ctx: ReconcileContext): Promise<ReconcileResult | void> {
    const io = this.io;
    const found = await locate(io, osr0, this.opts.defaultIdentity, ctx);
    if ('hold' in found) return found.hold;
    const fencing = await fenceAfterAction(io, osr0, found.target, found.nodes, found.node, ctx);
    if (fencing.requeueAfterMs !== undefined) return { requeueAfter: fencing.requeueAfterMs };
    const r = await this.decideAndAct(fencing.osr, found, ctx);
    // While a fence is pending, ask Nova again soon whatever the ladder waits for.
    return fencing.pending && r?.requeueAfter !== undefined
      ? { ...r, requeueAfter: Math.min(r.requeueAfter, FENCE_RECHECK_MS) }
      : r;
  }

  /** What decideLadder says, done. */
  private async decideAndAct(
    osr0: Osr,
    { target: t, nodes, node }: Located,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | void> {
    const io = this.io;
    const recovered = findMetaCondition(osr0.status?.conditions, CONDITION_NODE_RECOVERED);
    // At a step's timeout with the node silent since the action, the decision asks for the
    // node's Lease and then Nova's view of the server: gathered here, judged in deadline.ts.
    const decided = await decideWithEvidence(
      io,
      osr0,
      t,
      nodes,
      node?.name ?? t.machine.nodeName,
      (o, evidence) =>
        decideLadder({
          uid: uidOf(o),
          spec: o.spec,
          status: o.status,
          node,
          recoveredSinceMs:
            recovered?.status === 'True' ? Date.parse(recovered.lastTransitionTime) : undefined,
          now: io.now(),
          evidence,
        }),
      ctx,
    );
    const d = decided.decision;
    if (d.kind === 'Hold') return holdEscalation(io, decided.osr, d, decided.backoffMs, ctx);
    const osr = await releaseEscalationHold(io, decided.osr);
    ctx.log.debug({ osr: osr.metadata?.name, decision: d.kind }, 'decision');
    switch (d.kind) {
      case 'Done':
        return;
      case 'Drain': {
        // A server someone stopped stays off: asked before anything is cordoned or sent.
        const power = await checkPowerBeforeFirstAction(io, osr, t, ctx);
        if ('hold' in power) return power.hold;
        const drained = await drain(io, power.go, t, nodes, node, ctx);
        // The drain can take minutes: asked again before an action that can power it on.
        if (canPowerOn(d.first.step)) {
          const after = await checkPowerBeforeFirstAction(
            io,
            drained,
            t,
            ctx,
            `drained; the ${d.first.step.type} is not sent while it is off`,
          );
          if ('hold' in after) return after.hold;
          return act(io, after.go, t, node, d.first, undefined, false, ctx);
        }
        return act(io, drained, t, node, d.first, undefined, false, ctx);
      }
      case 'Act': {
        if ((osr.status?.history ?? []).length > 0) {
          // A later attempt or an escalation that can power the server on: stopped meanwhile?
          if (!canPowerOn(d.step)) return act(io, osr, t, node, d, d.ended, false, ctx);
          const again = await checkPowerBeforeFirstAction(
            io,
            osr,
            t,
            ctx,
            `the ${d.step.type} (attempt ${d.at.attempt} of step ${d.at.step + 1}) is not sent while it is off`,
          );
          if ('hold' in again) return again.hold;
          return act(io, again.go, t, node, d, d.ended, false, ctx);
        }
        const power = await checkPowerBeforeFirstAction(io, osr, t, ctx);
        if ('hold' in power) return power.hold;
        return act(io, power.go, t, node, d, d.ended, false, ctx);
      }
      case 'Replay':
        return act(io, osr, t, node, d, undefined, true, ctx);
      case 'MarkRecovered':
        return markRecovered(io, osr, node, d);
      case 'MarkNotRecovered':
        return markNotRecovered(io, osr, node, d);
      case 'Wait':
        return { requeueAfter: d.requeueAfterMs };
      case 'Succeed':
        return succeed(io, osr, t, nodes, ctx);
      case 'GiveUp':
        return giveUp(io, osr, t, d.message, d.ended, ctx);
      case 'ServerStopped':
        return holdStoppedAtDeadline(io, osr, t, d.evidence);
      case 'Ask':
        // decideWithEvidence answers each question once; one still open is a bug: look again.
        return { requeueAfter: WAIT_RECHECK_MS };
    }
  }
}
