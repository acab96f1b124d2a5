// @noderepair/core's MachineProvider port on Nova (see core's provider/port.ts for the four
// promises). SoftReboot/HardReboot are Nova reboots (SOFT/HARD), PowerOff is os-stop,
// Rebuild a rebuild from the request's image. Replace, when the options turn it on, deletes
// the server (server-delete.ts); capo-remediation leaves it off, Cluster API replaces there.
//
// "Did this action already run?" is answered by Nova's own records, not by ours: nova-api
// writes an instance action (name, request id, start time) before it answers 202, so
// GET /servers/{id}/os-instance-actions lists every action Nova accepted, whoever sent it
// and whether or not its reply arrived. An action of the same Nova name that started at or
// after the intent was persisted (less a clock-skew allowance) is this attempt's. The old
// metadata record (NovaRebootProvider: GET then PUT of a metadata key) is not used: it was a
// read-then-write race between two leaders, and Nova refuses it for servers in ERROR.
//
// Errors: only Nova's answer about the action itself (404 server gone, 409 state conflict
// after the client's conflict retries, 400) is Rejected. Everything that means "could not
// ask" (Keystone down or refusing, catalog, 5xx, 429, timeouts, 401/403 from a broken
// credential) is Unavailable: the caller waits, no attempt is used. A server action is never
// sent twice in one call: a lost reply or 5xx is looked up in the records; when they do not
// show it (yet), the answer is Unavailable with maybeSent, and the caller's replay asks again.
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  MachineRef,
  PowerState,
  ProviderAction,
  ProviderContext,
  ProviderOutcome,
} from '@noderepair/core/provider';
import * as E from 'fp-ts/lib/Either.js';
import { OpenStackError } from './errors.js';
import type { ActionAccepted, InstanceAction, NovaClient } from './nova.js';
import type { ServerInfo } from './server.js';
import { parseProviderID } from './provider-id.js';
import {
  deleteRecordSince,
  deletionOfServer,
  fenceAfterDelete,
  type Deletion,
} from './server-delete.js';

/** The actions that are Nova server actions (Command and Webhook are core's site steps). */
type NovaAction = Exclude<ProviderAction, 'Replace' | 'Command' | 'Webhook'>;

/** The name Nova records in os-instance-actions for each action we send. */
export const NOVA_ACTION_NAMES: Readonly<Record<NovaAction, string>> = {
  SoftReboot: 'reboot',
  HardReboot: 'reboot',
  PowerOff: 'stop',
  Rebuild: 'rebuild',
};

/** Tuning of NovaMachineProvider; every field has a default. */
export interface NovaMachineProviderOptions {
  /**
   * How far Nova's clock may be behind ours when matching a record to an intent by time
   * (Nova keeps whole seconds). Default 5 s. Attempts of the same Nova name are further apart
   * than this (step timeouts, the failed-attempt backoff), so one attempt never claims
   * another's record.
   */
  readonly clockSkewMs?: number;
  /** Suggested wait after an outage (the caller may use its own backoff). Default 10 s. */
  readonly retryAfterMs?: number;
  /**
   * What Replace does. 'DeleteServer': delete the Nova server (`noderepair run`, where the
   * node group's owner recreates capacity). 'NotSupported' (default): Replace is not an
   * action of this provider, as under capo-remediation, where Cluster API replaces the Machine.
   */
  readonly replace?: 'DeleteServer' | 'NotSupported';
  /**
   * The region the Nova client talks to (clouds.yaml region_name, or capo-remediation's
   * region of the Machine). When given, a providerID of the form openstack://<region>/<uuid>
   * naming another region is never acted on: a server uuid is only meaningful in its own
   * region, and this Nova's answers about it (a 404 above all) say nothing about the machine.
   * Undefined (the default): the providerID's region is not checked.
   */
  readonly region?: string | undefined;
}

type Answer = { kind: 'Found'; record: InstanceAction } | { kind: 'NotFound' };

/**
 * core's MachineProvider on Nova: SoftReboot and HardReboot are reboots, PowerOff is os-stop,
 * Rebuild a rebuild, and Replace (only when enabled) deletes the server. Whether an action already
 * ran is read from Nova's os-instance-actions, so a server action is never sent twice.
 */
export class NovaMachineProvider implements MachineProvider {
  /** The provider's name as it appears in outcomes and logs. */
  readonly name = 'openstack';
  /**
   * The actions this provider performs: SoftReboot, HardReboot, PowerOff, Rebuild, and Replace when
   * `replace` is `DeleteServer`.
   */
  readonly actions: ReadonlySet<ProviderAction>;
  readonly #nova: NovaClient;
  readonly #skewMs: number;
  readonly #retryAfterMs: number;
  readonly #deletes: boolean;
  readonly #region: string | undefined;
  /** Outcomes of ids accepted in this process (promise 1 without a round trip). */
  readonly #accepted = new Map<string, ProviderOutcome>();
  /**
   * The Nova request ids of the stops this process sent (PowerOff), with their action ids:
   * powerState tells our own stop from someone else's by them (lost on a restart, when a
   * stop of ours then reads as someone's: the machine is left off rather than powered on).
   */
  readonly #ourStops = new Map<string, string>();

  constructor(nova: NovaClient, opts: NovaMachineProviderOptions = {}) {
    this.#nova = nova;
    this.#skewMs = opts.clockSkewMs ?? 5_000;
    this.#retryAfterMs = opts.retryAfterMs ?? 10_000;
    this.#deletes = opts.replace === 'DeleteServer';
    this.#region = opts.region;
    const actions: ProviderAction[] = ['SoftReboot', 'HardReboot', 'PowerOff', 'Rebuild'];
    this.actions = new Set<ProviderAction>(this.#deletes ? [...actions, 'Replace'] : actions);
  }

  /**
   * Sends the action once (a replay first looks for it in Nova's records). Nova's refusal (404, 409
   * after retries, 400) is Rejected; anything that means Nova could not be asked is Unavailable,
   * using no attempt.
   */
  async execute(req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> {
    const known = this.#accepted.get(req.actionId);
    if (known !== undefined) return known;
    if (req.action === 'Replace' && !this.#deletes)
      return {
        kind: 'Rejected',
        message: 'Replace is not a Nova action: Cluster API replaces the Machine',
      };
    if (req.action === 'Rebuild' && !req.image)
      return { kind: 'Rejected', message: 'Rebuild needs an image (the ladder step has none)' };
    const id = parseProviderID(req.providerID);
    if (E.isLeft(id)) return { kind: 'Rejected', message: id.left };
    const serverId = id.right.serverId;
    const elsewhere = this.#otherRegion(id.right.region, serverId);
    // Unavailable, not Rejected: Nova was not asked, so there is no answer about the action,
    // and a Rejected would use an attempt and climb the ladder towards Replace on a machine
    // this provider cannot see. The caller waits (its ProviderUnavailable Warning tells a
    // person) until the provider is given the machine's region; nothing is sent meanwhile.
    if (elsewhere !== undefined) return this.#unavailable(elsewhere, req.replay);
    if (ctx.signal.aborted) return this.#unavailable('the controller is stopping', req.replay);
    if (req.action === 'Replace') return this.#replace(req, serverId, ctx.signal);
    try {
      if (req.replay) {
        // The intent was persisted, its outcome was not: Nova's records say whether it left.
        const a = await this.#record(serverId, req, ctx.signal);
        if (a.kind === 'Found') return this.#accept(req, serverId, a.record.requestId, true);
        if (ctx.signal.aborted) return this.#unavailable('the controller is stopping', true);
      }
      const sent = await this.#send(serverId, req, ctx.signal);
      return this.#accept(req, serverId, sent.requestId, false);
    } catch (e) {
      if (!(e instanceof OpenStackError)) throw e;
      if (e.maybeSent) return this.#maybeSent(serverId, req, e, ctx.signal);
      return this.#classify(e, `${req.action} of server ${serverId}`, false);
    }
  }

  /**
   * Whether the server is fenced after `q.action`: SHUTOFF, reset (the action's record finished
   * and the server is ACTIVE again), or deleted as Nova confirms it. A 404 alone is no fence,
   * whatever the action (another project's server, wrong credentials or region, a proxy): the
   * server is gone only when Nova still lists it as this project's deleted server, the one rule
   * of #fenceMissing. A providerID of another region than the provider's is NotFenced without a
   * request. Unavailable when Nova cannot be asked.
   */
  async fence(q: FenceQuery, ctx: ProviderContext): Promise<FenceStatus> {
    if (q.action === 'SoftReboot' || (q.action === 'Replace' && !this.#deletes))
      return { kind: 'NotFenced', reason: `${q.action} does not fence` };
    const id = parseProviderID(q.providerID);
    if (E.isLeft(id)) return { kind: 'NotFenced', reason: id.left };
    const serverId = id.right.serverId;
    const elsewhere = this.#otherRegion(id.right.region, serverId);
    if (elsewhere !== undefined) return { kind: 'NotFenced', reason: elsewhere };
    if (ctx.signal.aborted) return { kind: 'Unavailable', reason: 'the controller is stopping' };
    try {
      let server;
      try {
        server = await this.#nova.getServer(serverId, { signal: ctx.signal });
      } catch (e) {
        if (!(e instanceof OpenStackError) || e.code !== 'ServerNotFound') throw e;
        return await this.#fenceMissing(serverId, ctx.signal);
      }
      if (q.action === 'Replace') return fenceAfterDelete(serverId, server, undefined);
      return await this.#fenceAfterAction(serverId, server, q, ctx.signal);
    } catch (e) {
      if (!(e instanceof OpenStackError)) throw e;
      return {
        kind: 'Unavailable',
        reason: `could not ask Nova about server ${serverId}: ${e.code}: ${e.message}`,
        retryAfterMs: this.#retryAfterMs,
      };
    }
  }

  /** Fenced after a reboot, stop or rebuild of a server Nova shows: SHUTOFF, or a reset observed. */
  async #fenceAfterAction(
    serverId: string,
    server: ServerInfo,
    q: FenceQuery,
    signal: AbortSignal,
  ): Promise<FenceStatus> {
    if (server.status === 'SHUTOFF')
      return {
        kind: 'Fenced',
        how: 'PoweredOff',
        evidence: `Nova: server ${serverId} is SHUTOFF`,
      };
    if (q.action === 'PowerOff')
      return {
        kind: 'NotFenced',
        reason: `Nova: server ${serverId} is ${server.status} (task ${server.taskState ?? 'none'}), not yet SHUTOFF`,
      };
    const a = await this.#record(serverId, q, signal);
    if (a.kind === 'NotFound')
      return {
        kind: 'NotFenced',
        reason: `Nova has no ${NOVA_ACTION_NAMES[q.action as NovaAction]} of server ${serverId} since the intent`,
      };
    const detail = await this.#nova.getInstanceAction(serverId, a.record.requestId, { signal });
    const settled = server.status === 'ACTIVE' && server.taskState === null;
    if (detail.finishTime === undefined || !settled)
      return {
        kind: 'NotFenced',
        reason: `Nova's ${detail.action} ${detail.requestId} of server ${serverId} is not finished (server ${server.status}, task ${server.taskState ?? 'none'})`,
      };
    return {
      kind: 'Fenced',
      how: 'ResetObserved',
      evidence: `Nova: ${detail.action} ${detail.requestId} of server ${serverId} finished at ${new Date(detail.finishTime).toISOString()} and the server is ACTIVE`,
      at: detail.finishTime,
    };
  }

  /**
   * SHUTOFF is Off. The newest `stop` in os-instance-actions (each carries the request id and
   * the user who asked) says since when and who: a user's request through the API (an
   * operator's `openstack server stop`, a maintenance script) is byRequest, so core treats
   * the node as shut down and never powers it on; a stop Nova recorded itself, with no user,
   * is its power-state sync finding a guest that shut itself down or crashed, which Nova
   * cannot tell apart, so not byRequest (core repairs it). A stop whose request id is one
   * this provider sent (a PowerOff step) is ours, not someone's: not byRequest, and the
   * evidence says so. A providerID of another region is Unavailable, never Gone: this Nova's
   * 404 says nothing about that machine.
   */
  async powerState(m: MachineRef, ctx: ProviderContext): Promise<PowerState> {
    const id = parseProviderID(m.providerID);
    if (E.isLeft(id)) return { kind: 'Unavailable', reason: id.left };
    const elsewhere = this.#otherRegion(id.right.region, id.right.serverId);
    if (elsewhere !== undefined) return { kind: 'Unavailable', reason: elsewhere };
    if (ctx.signal.aborted) return { kind: 'Unavailable', reason: 'the controller is stopping' };
    try {
      const s = await this.#nova.getServer(id.right.serverId, { signal: ctx.signal });
      if (s.status !== 'SHUTOFF') return { kind: 'On' };
      const actions = await this.#nova.listInstanceActions(id.right.serverId, {
        signal: ctx.signal,
      });
      // Newest first.
      const stop = actions.find((a) => a.action === 'stop');
      if (stop === undefined)
        return {
          kind: 'Off',
          byRequest: false,
          evidence: `Nova: server ${s.id} is SHUTOFF (no stop in its instance actions)`,
        };
      const ours = this.#ourStops.get(stop.requestId);
      // No user: Nova's own sync. A user id, or no word about it: someone asked (an unknown
      // is taken as a request, so the machine is left off rather than powered on).
      const byRequest = ours === undefined && stop.userId !== null;
      const who =
        ours !== undefined
          ? `sent by this controller for ${ours}: ours, not someone else's`
          : stop.userId === null
            ? "recorded by Nova's power-state sync: the guest shut itself down or crashed"
            : stop.userId === undefined
              ? 'requested through the API (Nova did not say by whom)'
              : `requested through the API by user ${stop.userId}`;
      return {
        kind: 'Off',
        since: stop.startTime,
        byRequest,
        evidence: `Nova: server ${s.id} is SHUTOFF since ${new Date(stop.startTime).toISOString()} (stop ${stop.requestId} ${who})`,
      };
    } catch (e) {
      if (e instanceof OpenStackError && e.code === 'ServerNotFound')
        return this.#powerOfMissing(id.right.serverId, ctx.signal);
      if (e instanceof OpenStackError) return { kind: 'Unavailable', reason: e.message };
      throw e;
    }
  }

  /**
   * A 404 for the server: Gone only on the same proof as a fence (#fenceMissing: Nova lists it
   * as this project's deleted server). A bare 404 is another project's server, wrong
   * credentials or a proxy as often as a deleted one, and its machine may well be running:
   * the caller cannot tell, so it waits (Unavailable), never judging the machine gone.
   */
  async #powerOfMissing(serverId: string, signal: AbortSignal): Promise<PowerState> {
    try {
      const f = await this.#fenceMissing(serverId, signal);
      return f.kind === 'Fenced'
        ? { kind: 'Gone', evidence: f.evidence }
        : { kind: 'Unavailable', reason: f.reason };
    } catch (e) {
      if (e instanceof OpenStackError) return { kind: 'Unavailable', reason: e.message };
      throw e;
    }
  }

  /**
   * Replace = DELETE /servers/{id}, at most once (see server-delete.ts). Nova is asked first,
   * every time; on a replay its records since the intent too. 404 on the DELETE itself means
   * the machine is gone already: Accepted. A lost reply is looked up, never resent.
   */
  async #replace(req: ActionRequest, serverId: string, signal: AbortSignal) {
    const since = this.#since(req.issuedAt);
    try {
      const seen = await this.#deletion(serverId, req.replay ? since : undefined, signal);
      if (seen.kind === 'Seen') return this.#acceptReplace(req, seen);
      if (signal.aborted) return this.#unavailable('the controller is stopping', req.replay);
      const sent = await this.#nova.deleteServer(serverId, { signal });
      return this.#remember(req, {
        kind: 'Accepted',
        message: `Nova accepted the deletion of server ${serverId}${sent.requestId ? ` (${sent.requestId})` : ''}`,
        ...(sent.requestId !== undefined ? { ref: sent.requestId } : {}),
      });
    } catch (e) {
      if (!(e instanceof OpenStackError)) throw e;
      if (e.code === 'ServerNotFound')
        return this.#acceptReplace(req, {
          kind: 'Seen',
          detail: `server ${serverId} not found (already gone)`,
        });
      if (!e.maybeSent) return this.#classify(e, `delete of server ${serverId}`, req.replay);
      try {
        const seen = await this.#deletion(serverId, since, signal);
        if (seen.kind === 'Seen') return this.#acceptReplace(req, seen);
      } catch (e2) {
        if (!(e2 instanceof OpenStackError)) throw e2;
        if (e2.code === 'ServerNotFound')
          return this.#acceptReplace(req, { kind: 'Seen', detail: `server ${serverId} not found` });
        return this.#unavailable(
          `${e.message}; Nova's records could not be read either (${e2.code})`,
          true,
        );
      }
      return this.#unavailable(
        `${e.message}; Nova shows no deletion of it yet, so it is asked again before any resend`,
        true,
      );
    }
  }

  /** GET the server (404 is Seen); with `since`, also its `delete` records from then on. */
  async #deletion(serverId: string, since: number | undefined, signal: AbortSignal) {
    let server;
    try {
      server = await this.#nova.getServer(serverId, { signal });
    } catch (e) {
      if (e instanceof OpenStackError && e.code === 'ServerNotFound')
        return { kind: 'Seen', detail: `server ${serverId} not found (deleted)` } as const;
      throw e;
    }
    const seen = deletionOfServer(serverId, server);
    if (seen.kind === 'Seen' || since === undefined) return seen;
    const list = await this.#nova.listInstanceActions(serverId, { signal, includeDeleted: true });
    const hit = deleteRecordSince(list, since);
    if (hit === undefined) return seen;
    return {
      kind: 'Seen',
      detail: `Nova recorded delete ${hit.requestId} of server ${serverId} since the intent`,
      requestId: hit.requestId,
    } as const;
  }

  #acceptReplace(req: ActionRequest, seen: Extract<Deletion, { kind: 'Seen' }>) {
    return this.#remember(req, {
      kind: 'Accepted',
      message: `${seen.detail}; no DELETE sent for ${req.actionId}`,
      ...(seen.requestId !== undefined ? { ref: seen.requestId } : {}),
    });
  }

  /**
   * GET /servers/{id} answered 404, after any action. That alone proves nothing (see
   * fenceAfterDelete): os-instance-actions with deleted servers included (2.21) decides. A 404
   * there too means Nova knows no such server of this project: NotFenced, never Deleted.
   */
  async #fenceMissing(serverId: string, signal: AbortSignal): Promise<FenceStatus> {
    let records;
    try {
      records = await this.#nova.listInstanceActions(serverId, { signal, includeDeleted: true });
    } catch (e) {
      if (!(e instanceof OpenStackError) || e.code !== 'ServerNotFound') throw e;
      records = undefined;
    }
    return fenceAfterDelete(serverId, 'NotFound', records);
  }

  /**
   * Why a providerID naming a region other than this provider's is not acted on; undefined when
   * the regions agree or either is not known.
   */
  #otherRegion(region: string | undefined, serverId: string): string | undefined {
    if (region === undefined || this.#region === undefined || region === this.#region)
      return undefined;
    return `providerID names region ${JSON.stringify(region)} but this Nova client is in region ${JSON.stringify(this.#region)}: server ${serverId} is not asked about or acted on here`;
  }

  /** The earliest start time a record of this intent may show (Nova keeps whole seconds). */
  #since(issuedAt: number): number {
    return Math.floor(issuedAt / 1000) * 1000 - this.#skewMs;
  }

  #remember(req: ActionRequest, out: ProviderOutcome): ProviderOutcome {
    this.#accepted.set(req.actionId, out);
    return out;
  }

  #send(serverId: string, req: ActionRequest, signal: AbortSignal): Promise<ActionAccepted> {
    switch (req.action) {
      case 'SoftReboot':
        return this.#nova.reboot(serverId, 'SOFT', { signal });
      case 'HardReboot':
        return this.#nova.reboot(serverId, 'HARD', { signal });
      case 'PowerOff':
        return this.#nova.stop(serverId, { signal });
      default:
        return this.#nova.rebuild(serverId, req.image ?? '', { signal });
    }
  }

  /** This attempt's record in os-instance-actions: same Nova name, started since the intent. */
  async #record(
    serverId: string,
    q: { action: ProviderAction; issuedAt: number },
    signal: AbortSignal,
  ): Promise<Answer> {
    const name = NOVA_ACTION_NAMES[q.action as NovaAction];
    const since = this.#since(q.issuedAt);
    const list = await this.#nova.listInstanceActions(serverId, { signal });
    // Newest first: the oldest match is the first send of this attempt.
    const hit = list.filter((a) => a.action === name && a.startTime >= since).at(-1);
    return hit ? { kind: 'Found', record: hit } : { kind: 'NotFound' };
  }

  #accept(
    req: ActionRequest,
    serverId: string,
    requestId: string | undefined,
    fromRecord: boolean,
  ): ProviderOutcome {
    const out: ProviderOutcome = {
      kind: 'Accepted',
      message: fromRecord
        ? `Nova already has ${NOVA_ACTION_NAMES[req.action as 'HardReboot']} ${requestId ?? ''} of server ${serverId} for ${req.actionId}; not sent again`
        : `Nova accepted ${req.action} of server ${serverId}${requestId ? ` (${requestId})` : ''}`,
      ...(requestId !== undefined ? { ref: requestId } : {}),
    };
    this.#accepted.set(req.actionId, out);
    if (req.action === 'PowerOff' && requestId !== undefined)
      this.#ourStops.set(requestId, req.actionId);
    return out;
  }

  /** Sent, no answer: Nova's records decide; when they cannot be read or are silent, wait. */
  async #maybeSent(serverId: string, req: ActionRequest, e: OpenStackError, signal: AbortSignal) {
    try {
      const a = await this.#record(serverId, req, signal);
      if (a.kind === 'Found') return this.#accept(req, serverId, a.record.requestId, true);
    } catch (e2) {
      if (!(e2 instanceof OpenStackError)) throw e2;
      return this.#unavailable(
        `${e.message}; Nova's records could not be read either (${e2.code})`,
        true,
      );
    }
    return this.#unavailable(
      `${e.message}; Nova has no record of it yet, so it is asked again before any resend`,
      true,
    );
  }

  #classify(e: OpenStackError, what: string, maybeSent: boolean): ProviderOutcome {
    switch (e.code) {
      case 'ServerNotFound':
      case 'Conflict':
      case 'BadRequest':
      case 'ConfigError':
        return { kind: 'Rejected', message: `${e.code}: ${e.message}` };
      default:
        return this.#unavailable(`${what}: ${e.code}: ${e.message}`, maybeSent);
    }
  }

  #unavailable(message: string, maybeSent: boolean): ProviderOutcome {
    return { kind: 'Unavailable', message, maybeSent, retryAfterMs: this.#retryAfterMs };
  }
}
