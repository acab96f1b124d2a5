// Nova compute: the server actions remediation needs (reboot SOFT/HARD, os-start, os-stop,
// rebuild) and GET /servers/{id}. Status codes as the compute API documents them:
// 202 accepted; 409 conflicting task/state or locked -> wait and retry (bounded); 404 ->
// ServerNotFound (the controller escalates); 401 -> the session re-authenticates once;
// 403 policy; 406 microversion not supported; 5xx/timeouts -> the session backs off.
import * as E from 'fp-ts/lib/Either.js';
import { OpenStackError, ServerConflict, ServerNotFound } from './errors.js';
import { decodeServer, type ServerInfo } from './server.js';
import type { KeystoneSession, ServiceResponse } from './session.js';

export type RebootType = 'SOFT' | 'HARD';

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
  readonly signal?: AbortSignal | undefined;
}

export class NovaClient {
  readonly #session: KeystoneSession;
  readonly #microversion: string;

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

  reboot(serverId: string, type: RebootType, opts: CallOptions = {}): Promise<void> {
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

  start(serverId: string, opts: CallOptions = {}): Promise<void> {
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

  stop(serverId: string, opts: CallOptions = {}): Promise<void> {
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

  rebuild(serverId: string, imageRef: string, opts: CallOptions = {}): Promise<void> {
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

  async #action(serverId: string, spec: ActionSpec, opts: CallOptions): Promise<void> {
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
        // Sent, but the reply was lost: Nova may have accepted it, and a fast reboot may even be
        // over already, so sending it again could act twice. Count it as accepted (at most
        // once, like the action-id record): if nothing happened, the step times out and the
        // ladder tries again, which is safe; a double reboot is not.
        if (e instanceof OpenStackError && (e.code === 'Timeout' || e.code === 'TransportError')) {
          // Said once, loudly: the only trace of an action that may or may not have run.
          this.#session.logger?.warn(
            { server: serverId, action: spec.name, code: e.code, error: e.message },
            'no reply to the server action; counted as accepted and not sent again',
          );
          return;
        }
        throw e;
      }
      ambiguous ||= res.hadAmbiguousFailure;
      if (res.status === 202 || res.status === 200 || res.status === 204) return;
      if (res.status !== 409) this.#fail(serverId, what, res);
      if (ambiguous) {
        const s = await this.getServer(serverId, opts);
        if (spec.alreadyInProgress(s)) return;
      }
      if (attempt >= policy.conflictAttempts)
        throw new ServerConflict(serverId, spec.name, faultMessage(res.text));
      await this.#session.sleep(policy.conflictDelayMs);
    }
  }

  toString(): string {
    return `NovaClient(${this.#session.cloudName}, compute ${this.#microversion})`;
  }
}
