// Nova compute: the server actions remediation needs (reboot SOFT/HARD, os-start, os-stop,
// rebuild), DELETE /servers/{id} and GET /servers/{id}. Status codes as the compute API documents them:
// 202 accepted; 409 conflicting task/state or locked -> wait and retry (bounded); 404 ->
// ServerNotFound (the controller escalates); 401 -> the session re-authenticates once;
// 403 policy; 406 microversion not supported; 5xx/timeouts -> the session backs off.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from '@noderepair/core/codec';
import { ActionMaybeSent, OpenStackError, ServerConflict, ServerNotFound } from './errors.js';
import { decodeServer, type ServerInfo } from './server.js';
import type { KeystoneSession, ServiceResponse } from './session.js';

/** Nova's reboot kinds: SOFT asks the guest OS to restart, HARD power-cycles the server. */
export type RebootType = 'SOFT' | 'HARD';

/** Nova accepted a server action; its request id (x-openstack-request-id) when it said. */
export interface ActionAccepted {
  /**
   * Nova's request id, to look the action up in os-instance-actions; undefined when Nova did not
   * send one or the action was found already running.
   */
  readonly requestId: string | undefined;
}

/** One entry of os-instance-actions: start time in ms (Nova keeps whole seconds, UTC). */
export interface InstanceAction {
  /** Nova's action name, for example `reboot`, `stop`, `start`, `rebuild`, `delete`. */
  readonly action: string;
  /** The request id the action was recorded under. */
  readonly requestId: string;
  /** When Nova accepted the action, in epoch milliseconds. */
  readonly startTime: number;
  /**
   * Who asked: a user id for a request through the API; null when Nova recorded the action
   * itself (its power-state sync stopping a guest that shut down on its own); undefined when
   * the answer did not say.
   */
  readonly userId?: string | null;
}

/**
 * One os-instance-actions entry with its events, which say whether nova-compute has finished it.
 */
export interface InstanceActionDetail extends InstanceAction {
  /**
   * The action's events (for example `compute_reboot_instance`) with their result (`Success`,
   * `Error`, or null while running) and finish time in epoch milliseconds.
   */
  readonly events: ReadonlyArray<{
    readonly event: string;
    readonly result: string | null;
    readonly finishTime: number | undefined;
  }>;
  /** When every event of the action had finished (nova-compute done), else undefined. */
  readonly finishTime: number | undefined;
}

const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
const InstanceActionEntry = t.intersection([
  t.type({
    action: t.string,
    request_id: t.string,
    start_time: t.string,
  }),
  t.partial({ user_id: t.union([t.string, t.null]) }),
]);
const InstanceActionsBody = t.type({ instanceActions: t.array(InstanceActionEntry) });
const InstanceActionBody = t.type({
  instanceAction: t.intersection([
    InstanceActionEntry,
    t.partial({
      events: t.array(
        t.intersection([
          t.type({ event: t.string }),
          t.partial({ result: nullable(t.string), finish_time: nullable(t.string) }),
        ]),
      ),
    }),
  ]),
});

/** Nova's times are UTC without a zone ("2026-01-01T10:00:00.000000"). */
function novaTime(s: string): number {
  return Date.parse(/Z$|[+-]\d\d:\d\d$/.test(s) ? s : `${s}Z`);
}

function requestIdOf(res: ServiceResponse): string | undefined {
  return (
    res.headers.get('x-openstack-request-id') ??
    res.headers.get('x-compute-request-id') ??
    undefined
  );
}

/** Options of NovaClient. */
export interface NovaClientOptions {
  /** Compute microversion sent as "OpenStack-API-Version: compute <v>"; default 2.9 (shows `locked`). */
  readonly microversion?: string | undefined;
}

const MICROVERSION = /^2\.(\d+)$/;
const SOFT_REBOOT_TASKS = new Set(['rebooting', 'reboot_pending', 'reboot_started']);
const HARD_REBOOT_TASKS = new Set(['rebooting_hard', 'reboot_pending_hard', 'reboot_started_hard']);

/** Nova fault bodies look like {"conflictingRequest": {"code": 409, "message": "..."}}. */
export function faultMessage(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object') {
      for (const v of Object.values(body as Record<string, unknown>)) {
        const msg = (v as { message?: unknown } | null)?.message;
        if (typeof msg === 'string') return msg.slice(0, 300);
      }
    }
  } catch {
    // Not JSON (a proxy's HTML page): say nothing rather than echo it.
  }
  return 'no detail';
}

interface ActionSpec {
  readonly name: string;
  readonly body: unknown;
  /**
   * After an attempt without a clear answer (timeout, 5xx) Nova may have accepted it anyway;
   * a 409 then usually means "your own action is running". When the server already shows
   * that, the action counts as accepted instead of being sent again (no double reboot).
   */
  readonly alreadyInProgress: (s: ServerInfo) => boolean;
}

/** Per call: the caller's AbortSignal (a lost Lease ends the call: OpenStackError 'Aborted'). */
export interface CallOptions {
  /**
   * Aborts the call, its retries and backoff waits; the call then rejects with OpenStackError
   * `Aborted`.
   */
  readonly signal?: AbortSignal | undefined;
}

/**
 * Nova compute calls for remediation: server reads, reboot, start, stop, rebuild, delete, metadata
 * and instance actions. Server actions are never sent twice: a lost answer is ActionMaybeSent, not
 * a retry.
 */
export class NovaClient {
  readonly #session: KeystoneSession;
  readonly #microversion: string;

  /**
   * Throws OpenStackError `ConfigError` when the microversion is not of the form 2.N; sends
   * nothing.
   */
  constructor(session: KeystoneSession, opts: NovaClientOptions = {}) {
    const mv = opts.microversion ?? '2.9';
    if (!MICROVERSION.test(mv))
      throw new OpenStackError(
        'ConfigError',
        `compute microversion "${mv}": expected 2.<minor>, e.g. 2.9`,
      );
    this.#session = session;
    this.#microversion = mv;
  }

  /** The compute microversion sent with every call. */
  get microversion(): string {
    return this.#microversion;
  }

  #headers(): Record<string, string> {
    return { 'OpenStack-API-Version': `compute ${this.#microversion}` };
  }

  #fail(serverId: string, what: string, res: ServiceResponse): never {
    const detail = faultMessage(res.text);
    switch (res.status) {
      case 404:
        throw new ServerNotFound(serverId, detail);
      case 401:
        throw new OpenStackError(
          'Unauthorized',
          `${what}: token rejected twice (HTTP 401): ${detail}`,
          401,
        );
      case 403:
        throw new OpenStackError(
          'Forbidden',
          `${what}: forbidden by policy (HTTP 403): ${detail}`,
          403,
        );
      case 406:
        throw new OpenStackError(
          'MicroversionNotSupported',
          `${what}: compute microversion ${this.#microversion} is not supported by this cloud (HTTP 406): ${detail}`,
          406,
        );
      case 400:
        throw new OpenStackError('BadRequest', `${what}: bad request (HTTP 400): ${detail}`, 400);
      default:
        throw new OpenStackError(
          'InvalidResponse',
          `${what}: unexpected HTTP ${res.status}: ${detail}`,
          res.status,
        );
    }
  }

  /**
   * GET /servers/{id}. Throws ServerNotFound on 404, OpenStackError `InvalidResponse` when the body
   * does not decode, and other OpenStackErrors by status.
   */
  async getServer(serverId: string, opts: CallOptions = {}): Promise<ServerInfo> {
    const path = `/servers/${encodeURIComponent(serverId)}`;
    const res = await this.#session.request('compute', {
      method: 'GET',
      path,
      headers: this.#headers(),
      signal: opts.signal,
    });
    if (res.status !== 200) this.#fail(serverId, `get server ${serverId}`, res);
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new OpenStackError('InvalidResponse', `get server ${serverId}: reply is not JSON`);
    }
    const s = decodeServer(body);
    if (E.isLeft(s)) throw new OpenStackError('InvalidResponse', s.left);
    return s.right;
  }

  /**
   * POST a reboot action (SOFT or HARD). A 409 is retried after RetryPolicy.conflictDelayMs up to
   * conflictAttempts times, then ServerConflict; a reply lost after sending is ActionMaybeSent.
   */
  reboot(serverId: string, type: RebootType, opts: CallOptions = {}): Promise<ActionAccepted> {
    const status = type === 'HARD' ? 'HARD_REBOOT' : 'REBOOT';
    // Nova's reboot task states: rebooting / reboot_pending / reboot_started, with a _hard
    // suffix for HARD. A HARD reboot of an ERROR server still shows status ERROR.
    const tasks = type === 'HARD' ? HARD_REBOOT_TASKS : SOFT_REBOOT_TASKS;
    return this.#action(
      serverId,
      {
        name: `reboot ${type}`,
        body: { reboot: { type } },
        alreadyInProgress: (s) =>
          s.status === status || (s.taskState !== null && tasks.has(s.taskState)),
      },
      opts,
    );
  }

  /** POST os-start (power on a stopped server). Same 409 and lost-reply handling as reboot. */
  start(serverId: string, opts: CallOptions = {}): Promise<ActionAccepted> {
    return this.#action(
      serverId,
      {
        name: 'os-start',
        body: { 'os-start': null },
        alreadyInProgress: (s) => s.taskState === 'powering-on',
      },
      opts,
    );
  }

  /** POST os-stop (power off). Same 409 and lost-reply handling as reboot. */
  stop(serverId: string, opts: CallOptions = {}): Promise<ActionAccepted> {
    return this.#action(
      serverId,
      {
        name: 'os-stop',
        body: { 'os-stop': null },
        alreadyInProgress: (s) => s.taskState === 'powering-off',
      },
      opts,
    );
  }

  /** GET /servers/{id}/metadata */
  async getMetadata(serverId: string, opts: CallOptions = {}): Promise<Record<string, string>> {
    const path = `/servers/${encodeURIComponent(serverId)}/metadata`;
    const res = await this.#session.request('compute', {
      method: 'GET',
      path,
      headers: this.#headers(),
      signal: opts.signal,
    });
    if (res.status !== 200) this.#fail(serverId, `get metadata of server ${serverId}`, res);
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new OpenStackError(
        'InvalidResponse',
        `get metadata of server ${serverId}: reply is not JSON`,
      );
    }
    const metadata = (body as { metadata?: unknown } | null)?.metadata;
    if (
      typeof metadata !== 'object' ||
      metadata === null ||
      Object.values(metadata).some((v) => typeof v !== 'string')
    ) {
      throw new OpenStackError(
        'InvalidResponse',
        `get metadata of server ${serverId}: body.metadata: expected a map of strings`,
      );
    }
    return metadata as Record<string, string>;
  }

  /** PUT /servers/{id}/metadata/{key}: sets one item. A locked server answers 409 (ServerConflict). */
  async setMetadataItem(
    serverId: string,
    key: string,
    value: string,
    opts: CallOptions = {},
  ): Promise<void> {
    const path = `/servers/${encodeURIComponent(serverId)}/metadata/${encodeURIComponent(key)}`;
    const res = await this.#session.request('compute', {
      method: 'PUT',
      path,
      body: { meta: { [key]: value } },
      headers: this.#headers(),
      signal: opts.signal,
    });
    if (res.status === 200) return;
    if (res.status === 409)
      throw new ServerConflict(serverId, `set metadata ${key}`, faultMessage(res.text));
    this.#fail(serverId, `set metadata ${key} of server ${serverId}`, res);
  }

  /**
   * POST a rebuild from `imageRef` (an image id; empty is rejected as `ConfigError` without a
   * request). Same 409 and lost-reply handling as reboot.
   */
  rebuild(serverId: string, imageRef: string, opts: CallOptions = {}): Promise<ActionAccepted> {
    if (imageRef.trim() === '') {
      return Promise.reject(
        new OpenStackError(
          'ConfigError',
          `rebuild of server ${serverId}: imageRef must not be empty`,
        ),
      );
    }
    return this.#action(
      serverId,
      {
        name: 'rebuild',
        body: { rebuild: { imageRef } },
        alreadyInProgress: (s) => s.status === 'REBUILD',
      },
      opts,
    );
  }

  /**
   * DELETE /servers/{id}: 204 once nova-api has recorded a `delete` instance action and set
   * task_state deleting (soft-deleting where the cloud keeps deleted servers for a while,
   * reclaim_instance_interval); nova-compute removes the server later, then GET answers 404.
   * Sent once: a lost reply or a 5xx is ActionMaybeSent for the caller to look up in Nova's
   * records. 404 is ServerNotFound. 409 (locked) is ServerConflict at once: a lock does not
   * go away by waiting, unlike the task conflicts the reboot path waits out.
   */
  async deleteServer(serverId: string, opts: CallOptions = {}): Promise<ActionAccepted> {
    let res: ServiceResponse;
    try {
      res = await this.#session.request('compute', {
        method: 'DELETE',
        path: `/servers/${encodeURIComponent(serverId)}`,
        headers: this.#headers(),
        noResendWithoutReply: true,
        signal: opts.signal,
      });
    } catch (e) {
      if (e instanceof OpenStackError && e.maybeSent) {
        this.#session.logger?.warn(
          { server: serverId, action: 'delete', code: e.code, status: e.status },
          'no answer to the server delete; not sent again',
        );
        throw new ActionMaybeSent(serverId, 'delete', e);
      }
      throw e;
    }
    if (res.status === 204 || res.status === 202 || res.status === 200)
      return { requestId: requestIdOf(res) };
    if (res.status === 409) throw new ServerConflict(serverId, 'delete', faultMessage(res.text));
    this.#fail(serverId, `delete of server ${serverId}`, res);
  }

  async #action(serverId: string, spec: ActionSpec, opts: CallOptions): Promise<ActionAccepted> {
    const path = `/servers/${encodeURIComponent(serverId)}/action`;
    const what = `${spec.name} of server ${serverId}`;
    const policy = this.#session.retryPolicy;
    let ambiguous = false;
    for (let attempt = 1; ; attempt++) {
      let res: ServiceResponse;
      try {
        res = await this.#session.request('compute', {
          method: 'POST',
          path,
          body: spec.body,
          headers: this.#headers(),
          noResendWithoutReply: true,
          signal: opts.signal,
        });
      } catch (e) {
        // Sent, but no usable answer (lost reply, 5xx): Nova may have accepted it, and a fast
        // reboot may even be over already, so it is never sent again here. The caller asks
        // Nova's records (NovaMachineProvider) or counts it as accepted (NovaRebootProvider).
        if (e instanceof OpenStackError && e.maybeSent) {
          // Said once, loudly: the only trace of an action that may or may not have run.
          this.#session.logger?.warn(
            { server: serverId, action: spec.name, code: e.code, status: e.status },
            'no answer to the server action; not sent again',
          );
          throw new ActionMaybeSent(serverId, spec.name, e);
        }
        throw e;
      }
      ambiguous ||= res.hadAmbiguousFailure;
      if (res.status === 202 || res.status === 200 || res.status === 204)
        return { requestId: requestIdOf(res) };
      if (res.status !== 409) this.#fail(serverId, what, res);
      if (ambiguous) {
        const s = await this.getServer(serverId, opts);
        if (spec.alreadyInProgress(s)) return { requestId: undefined };
      }
      if (attempt >= policy.conflictAttempts)
        throw new ServerConflict(serverId, spec.name, faultMessage(res.text));
      await this.#session.sleep(policy.conflictDelayMs);
    }
  }

  /**
   * GET /servers/{id}/os-instance-actions: Nova's own record of the actions it accepted for
   * the server (written by nova-api before its 202), newest first as Nova returns them.
   * `includeDeleted`: also for a server that is already deleted (needs microversion 2.21).
   */
  async listInstanceActions(
    serverId: string,
    opts: CallOptions & { readonly includeDeleted?: boolean } = {},
  ): Promise<InstanceAction[]> {
    // Nova lists a deleted server's actions from microversion 2.21 on (404 below it).
    const minor = Number(MICROVERSION.exec(this.#microversion)?.[1] ?? '0');
    const body = await this.#getJson(
      serverId,
      `/servers/${encodeURIComponent(serverId)}/os-instance-actions`,
      `instance actions of server ${serverId}`,
      opts.includeDeleted === true && minor < 21 ? '2.21' : this.#microversion,
      opts,
    );
    const r = InstanceActionsBody.decode(body);
    if (E.isLeft(r))
      throw new OpenStackError(
        'InvalidResponse',
        `instance actions of server ${serverId}: ${formatErrors(r.left, 'body').join('; ')}`,
      );
    return r.right.instanceActions.map((a) => ({
      action: a.action,
      requestId: a.request_id,
      startTime: novaTime(a.start_time),
      ...(a.user_id !== undefined ? { userId: a.user_id } : {}),
    }));
  }

  /**
   * GET /servers/{id}/os-instance-actions/{request_id} with its events (microversion 2.51
   * shows them to non-admins): finishTime is when the last event finished, undefined while
   * any event is still running.
   */
  async getInstanceAction(
    serverId: string,
    requestId: string,
    opts: CallOptions = {},
  ): Promise<InstanceActionDetail> {
    const minor = Number(MICROVERSION.exec(this.#microversion)?.[1] ?? '0');
    const body = await this.#getJson(
      serverId,
      `/servers/${encodeURIComponent(serverId)}/os-instance-actions/${encodeURIComponent(requestId)}`,
      `instance action ${requestId} of server ${serverId}`,
      minor >= 51 ? this.#microversion : '2.51',
      opts,
    );
    const r = InstanceActionBody.decode(body);
    if (E.isLeft(r))
      throw new OpenStackError(
        'InvalidResponse',
        `instance action ${requestId} of server ${serverId}: ${formatErrors(r.left, 'body').join('; ')}`,
      );
    const a = r.right.instanceAction;
    const events = (a.events ?? []).map((ev) => ({
      event: ev.event,
      result: ev.result ?? null,
      finishTime: ev.finish_time ? novaTime(ev.finish_time) : undefined,
    }));
    const finished = events.length > 0 && events.every((ev) => ev.finishTime !== undefined);
    return {
      action: a.action,
      requestId: a.request_id,
      startTime: novaTime(a.start_time),
      events,
      finishTime: finished ? Math.max(...events.map((ev) => ev.finishTime as number)) : undefined,
    };
  }

  async #getJson(
    serverId: string,
    path: string,
    what: string,
    mv: string,
    opts: CallOptions,
  ): Promise<unknown> {
    const res = await this.#session.request('compute', {
      method: 'GET',
      path,
      headers: { 'OpenStack-API-Version': `compute ${mv}` },
      signal: opts.signal,
    });
    if (res.status !== 200) this.#fail(serverId, what, res);
    try {
      return JSON.parse(res.text);
    } catch {
      throw new OpenStackError('InvalidResponse', `${what}: reply is not JSON`);
    }
  }

  /** `NovaClient(<cloud>, compute <microversion>)`; never a credential. */
  toString(): string {
    return `NovaClient(${this.#session.cloudName}, compute ${this.#microversion})`;
  }
}
