// FakeOpenStack: a FAKE Keystone v3 + Nova for tests, following shared/reference/openstack.md.
// It is not OpenStack: it implements only what remediation uses (token issue, catalog,
// server GET and the reboot/start/stop/rebuild actions) with the documented status codes
// (202/400/401/403/404/406/409), plus fault injection and a request log so tests can count
// reboots per server. Two ways in:
//   - `fake.transport`: in memory, for unit tests (no sockets);
//   - `await fake.listen()`: a real HTTP(S) server on a random loopback port.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { OpenStackError } from '../errors.js';
import type { HttpRequest, HttpResponse, Transport } from '../transport.js';
import {
  FakeCompute,
  novaStatus,
  type AddServerOptions,
  type FakeServerState,
} from './fake-compute.js';
import {
  FakeIdentity,
  type FakeToken,
  type FakeApplicationCredential,
  type FakeProject,
  type FakeUser,
} from './fake-identity.js';

/** The catalog interfaces the fake offers; each has its own compute URL. */
export type FakeInterface = 'public' | 'internal' | 'admin';
/** The services the fake serves: Keystone (`identity`) and Nova (`compute`). */
export type FakeService = 'identity' | 'compute';

/**
 * How to build a FakeOpenStack; every field has a default (one region, the FAKE_DEFAULTS user,
 * project and application credential).
 */
export interface FakeOpenStackOptions {
  /** Regions with a compute endpoint (each interface gets its own URL). Default ['RegionOne']. */
  readonly regions?: readonly string[];
  /** Users Keystone knows; default the FAKE_DEFAULTS user with a role on its project. */
  readonly users?: readonly FakeUser[];
  /**
   * Projects; default the FAKE_DEFAULTS project. The first one owns servers added without a
   * projectId.
   */
  readonly projects?: readonly FakeProject[];
  /** Application credentials; default the FAKE_DEFAULTS one. */
  readonly applicationCredentials?: readonly FakeApplicationCredential[];
  /** Lifetime of issued tokens in seconds, on the `now` clock; default 3600. */
  readonly tokenTtlSeconds?: number;
  /** Time for a reboot/start/stop/rebuild to complete. Default 2000 ms. */
  readonly transitionDelayMs?: number;
  /**
   * Time between an action's 202 and nova-compute picking it up: until then the server shows
   * the API's task state (rebooting, rebooting_hard, powering-off), as real Nova's did right
   * after the 202 on the testbed. Default 0 (picked up at once, the compute task state shows
   * right away).
   */
  readonly computePickupDelayMs?: number;
  /** Highest compute microversion; default 2.96. The lowest is 2.1. */
  readonly maxMicroversion?: string;
  /** When set, rebuild accepts only these image ids (else 400). */
  readonly images?: readonly string[];
  /** The clock for token expiry and server transitions. */
  readonly now?: () => number;
  /**
   * Like Nova's keystonemiddleware (token_cache_time, 300 s by default): a token compute has
   * validated stays accepted this long even after it is revoked (never past its expiry).
   * Default 0: every request is checked against the fake Keystone, so revokeTokens() bites
   * at once.
   */
  readonly serviceTokenCacheSeconds?: number;
}

/** One request the fake answered, for tests to assert on what the client sent. */
export interface FakeRequestLogEntry {
  /** When it arrived, in epoch milliseconds on the fake's clock. */
  readonly at: number;
  /** HTTP method. */
  readonly method: string;
  /** URL path without a trailing slash. */
  readonly path: string;
  /** Which fake service it was for; `unknown` for paths outside both. */
  readonly service: FakeService | 'unknown';
  /** Region of the compute endpoint called. */
  readonly region?: string | undefined;
  /** Interface of the compute endpoint called. */
  readonly interface?: FakeInterface | undefined;
  /** The server the path names, if any. */
  readonly serverId?: string | undefined;
  /** reboot, os-start, os-stop, rebuild */
  readonly action?: string | undefined;
  /** SOFT or HARD for a reboot action. */
  readonly rebootType?: string | undefined;
  /** The compute microversion the request asked for, if it sent one. */
  readonly microversion?: string | undefined;
  /** The status the fake answered (an injected fault's status included). */
  readonly status: number;
  /** True when the status came from fault injection. */
  readonly injected: boolean;
}

/** A fault to inject with failNext or setOutage. */
export interface FaultSpec {
  /** 5xx as during outages, or 401 to make a service reject even fresh tokens. */
  readonly status: 401 | 500 | 502 | 503 | 504;
  /** When set, the faulted reply carries this Retry-After header. */
  readonly retryAfterSeconds?: number | undefined;
  /** Only requests to this service are affected (default: any). */
  readonly service?: FakeService | undefined;
  /**
   * The request reaches the service and takes effect, then the reply is replaced by this
   * status, as a proxy in front of nova-api does when the upstream reply is lost (502/504).
   */
  readonly afterForward?: boolean | undefined;
}

interface RawRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: { get(name: string): string | null };
  readonly body: string;
}

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The fake's default identity, usable in clouds.yaml produced by cloudsYaml(). */
export const FAKE_DEFAULTS = {
  domain: 'Default',
  project: { id: 'f0000000000000000000000000000001', name: 'capi', domain: 'Default' },
  user: {
    id: 'u0000000000000000000000000000001',
    name: 'capo',
    domain: 'Default',
    password: 'fake-password-7hQx2Lm9',
  },
  applicationCredential: {
    id: 'ac000000000000000000000000000001',
    name: 'capo-remediation',
    secret: 'fake-app-secret-Zp4Kw8Rt',
  },
} as const;

const MIN_MINOR = 1;

function parseMinor(v: string): number | undefined {
  const m = /^2\.(\d+)$/.exec(v);
  return m ? Number(m[1]) : undefined;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? '' : JSON.stringify(body),
  };
}

function fault(
  status: number,
  kind: string,
  message: string,
  headers: Record<string, string> = {},
): RawResponse {
  return json(status, { [kind]: { code: status, message } }, headers);
}

interface FakeInstanceAction {
  readonly action: string;
  readonly requestId: string;
  readonly startMs: number;
  /** The requester's user; null for what Nova records itself (its power-state sync). */
  readonly userId: string | null;
}

/** The action name Nova records for each body key of POST /servers/{id}/action. */
const INSTANCE_ACTION_NAMES: Readonly<Record<string, string>> = {
  reboot: 'reboot',
  'os-stop': 'stop',
  'os-start': 'start',
  rebuild: 'rebuild',
};

/**
 * A FAKE Keystone v3 and Nova, in memory (its `transport`) or over HTTP(S) (`listen`), for tests
 * only. Servers change state on the injected clock; faults, outages, latency and revoked tokens are
 * injected through its controls.
 */
export class FakeOpenStack {
  readonly #instanceActions = new Map<string, FakeInstanceAction[]>();
  /** The fake Keystone: users, projects, credentials and tokens. */
  readonly identity: FakeIdentity;
  /** The fake Nova: servers and their state machine. */
  readonly compute: FakeCompute;
  /** Regions with endpoints in the catalog. */
  readonly regions: readonly string[];
  readonly #log: FakeRequestLogEntry[] = [];
  readonly #faults: FaultSpec[] = [];
  #outage: FaultSpec | undefined;
  readonly #now: () => number;
  readonly #maxMinor: number;
  #latencyMs = 0;
  readonly #tokenCacheMs: number;
  readonly #tokenCache = new Map<string, { record: FakeToken; until: number }>();
  #baseUrl = 'http://openstack.fake.invalid';
  #server: Server | undefined;

  constructor(opts: FakeOpenStackOptions = {}) {
    this.#now = opts.now ?? Date.now;
    this.regions = opts.regions ?? ['RegionOne'];
    const maxMinor = parseMinor(opts.maxMicroversion ?? '2.96');
    if (maxMinor === undefined)
      throw new Error(`FakeOpenStack: maxMicroversion must look like 2.<minor>`);
    this.#maxMinor = maxMinor;
    this.#tokenCacheMs = (opts.serviceTokenCacheSeconds ?? 0) * 1000;
    const d = FAKE_DEFAULTS;
    this.identity = new FakeIdentity(
      {
        users: [...(opts.users ?? [{ ...d.user, projects: [d.project.id] }])],
        projects: [...(opts.projects ?? [d.project])],
        applicationCredentials: [
          ...(opts.applicationCredentials ?? [
            { ...d.applicationCredential, userId: d.user.id, projectId: d.project.id },
          ]),
        ],
        tokenTtlMs: (opts.tokenTtlSeconds ?? 3600) * 1000,
      },
      this.#now,
    );
    this.compute = new FakeCompute(
      opts.transitionDelayMs ?? 2000,
      opts.images,
      this.#now,
      opts.computePickupDelayMs ?? 0,
    );
  }

  /** Creates a fake and starts its HTTP(S) server on 127.0.0.1 with a random port. */
  static async start(
    opts: FakeOpenStackOptions & { tls?: { cert: string; key: string } } = {},
  ): Promise<FakeOpenStack> {
    const f = new FakeOpenStack(opts);
    await f.listen(opts.tls);
    return f;
  }

  /**
   * Root URL of the fake; `http://openstack.fake.invalid` (reachable only through `transport`)
   * until listen() gives it a real port.
   */
  get baseUrl(): string {
    return this.#baseUrl;
  }

  /** Keystone v3 base URL for clouds.yaml auth_url. */
  get authUrl(): string {
    return `${this.#baseUrl}/identity/v3`;
  }

  /** The compute endpoint the catalog lists for a region and interface. */
  computeUrl(region: string, iface: FakeInterface = 'public'): string {
    return `${this.#baseUrl}/compute/${region}/${iface}/v2.1`;
  }

  // ---- scenario controls -------------------------------------------------------------

  /** Creates a server (ACTIVE unless `opts.status` says otherwise) and returns its id. */
  addServer(opts: AddServerOptions = {}): string {
    return this.compute.add(opts, this.identity.projects[0]?.id ?? FAKE_DEFAULTS.project.id).id;
  }

  /** A snapshot of a server as Nova would show it (undefined when deleted or unknown). */
  server(id: string):
    | {
        id: string;
        status: string;
        taskState: string | null;
        vmState: string;
        locked: boolean;
        boots: number;
        imageRef: string;
        metadata: Record<string, string>;
      }
    | undefined {
    const s = this.compute.get(id);
    if (!s) return undefined;
    return {
      id: s.id,
      status: novaStatus(s),
      taskState: s.taskState,
      vmState: s.vmState,
      locked: s.locked,
      boots: s.boots,
      imageRef: s.imageRef,
      metadata: { ...s.metadata },
    };
  }

  /**
   * Nova's admin action os-resetState: sets vm_state (`error` or `active`) and clears any
   * task, as `POST /servers/{id}/action {"os-resetState": {"state": "error"}}` does on the
   * testbed. Throws for an unknown server.
   */
  resetState(id: string, state: 'error' | 'active'): void {
    const s = this.compute.get(id);
    if (!s) throw new Error(`FakeOpenStack.resetState: no server ${id}`);
    s.pending = undefined;
    s.taskState = null;
    s.vmState = state;
  }

  /**
   * The server is gone at once, deleted out of band (an operator, a local delete while its
   * compute host was down): no `delete` record. Its records stay listable (2.21+).
   */
  deleteServer(id: string): void {
    this.compute.remove(id);
  }

  /** Nova's reclaim_instance_interval (see FakeCompute): > 0 makes DELETE a soft delete. */
  setReclaimInstanceInterval(seconds: number): void {
    this.compute.reclaimInstanceIntervalSeconds = seconds;
  }

  /** As the testbed's SIGSTOP of nova-compute: accepted actions stay pending (see FakeCompute). */
  pauseCompute(): void {
    this.compute.pauseCompute();
  }

  /**
   * Ends pauseCompute: pending actions are picked up now and complete after the transition delay.
   */
  resumeCompute(): void {
    this.compute.resumeCompute();
  }

  /**
   * Locks or unlocks a server (non-admin actions on a locked server get 409). Throws for an unknown
   * id.
   */
  setLocked(id: string, locked: boolean): void {
    this.#mustServer(id).locked = locked;
  }

  /** Puts a server into Nova's ERROR state (vm_state error, no task). */
  setError(id: string): void {
    const s = this.#mustServer(id);
    s.vmState = 'error';
    s.taskState = null;
    s.pending = undefined;
  }

  /** Actions on this server answer 403 (policy). */
  denyActions(id: string, denied = true): void {
    this.#mustServer(id).policyDenied = denied;
  }

  #mustServer(id: string): FakeServerState {
    const s = this.compute.get(id);
    if (!s) throw new Error(`FakeOpenStack: no server ${id}`);
    return s;
  }

  /**
   * Every request to the service (any service without one) gets this fault until cleared
   * with undefined: Keystone or nova-api down behind a load balancer, for as long as it lasts.
   */
  setOutage(spec: FaultSpec | undefined): void {
    this.#outage = spec;
  }

  /** The next `count` requests (optionally of one service) fail with the given status. */
  failNext(count: number, spec: FaultSpec): void {
    for (let i = 0; i < count; i++) this.#faults.push(spec);
  }

  /** Every reply is delayed by this much (after the request took effect, like a slow link). */
  setLatency(ms: number): void {
    this.#latencyMs = ms;
  }

  /** Revokes every issued token: the next service call gets 401. */
  revokeTokens(): void {
    this.identity.revokeAll();
  }

  // ---- request log -------------------------------------------------------------------

  /** Every request answered since the start or the last clearLog(), oldest first. */
  get requests(): readonly FakeRequestLogEntry[] {
    return this.#log;
  }

  /** Accepted (202) actions on a server, optionally of one kind. */
  acceptedActions(serverId: string, action?: string): FakeRequestLogEntry[] {
    return this.#log.filter(
      (e) =>
        e.serverId === serverId &&
        e.action !== undefined &&
        e.status === 202 &&
        (!action || e.action === action),
    );
  }

  /** How many reboots Nova accepted for a server (optionally SOFT or HARD only). */
  rebootCount(serverId: string, type?: 'SOFT' | 'HARD'): number {
    return this.acceptedActions(serverId, 'reboot').filter((e) => !type || e.rebootType === type)
      .length;
  }

  /** Successful token issues. */
  get tokenIssues(): number {
    return this.#log.filter((e) => e.service === 'identity' && e.status === 201).length;
  }

  /** Empties the request log (and with it acceptedActions, rebootCount and tokenIssues). */
  clearLog(): void {
    this.#log.length = 0;
  }

  // ---- request handling --------------------------------------------------------------

  #catalog(): unknown[] {
    const ifaces: FakeInterface[] = ['public', 'internal', 'admin'];
    return [
      {
        type: 'identity',
        name: 'keystone',
        endpoints: this.regions.flatMap((r) =>
          ifaces.map((i) => ({
            interface: i,
            region_id: r,
            region: r,
            url: this.authUrl.replace(/\/v3$/, ''),
          })),
        ),
      },
      {
        type: 'compute',
        name: 'nova',
        endpoints: this.regions.flatMap((r) =>
          ifaces.map((i) => ({
            interface: i,
            region_id: r,
            region: r,
            url: this.computeUrl(r, i),
          })),
        ),
      },
    ];
  }

  #handle(req: RawRequest): {
    res: RawResponse;
    entry: Omit<FakeRequestLogEntry, 'status' | 'injected' | 'at'>;
  } {
    const path = req.url.pathname.replace(/\/+$/, '');
    const base = { method: req.method, path };
    if (path.startsWith('/identity')) {
      const entry = { ...base, service: 'identity' as const };
      if (path === '/identity/v3/auth/tokens' && req.method === 'DELETE')
        return { res: this.#revoke(req), entry };
      if (path !== '/identity/v3/auth/tokens' || req.method !== 'POST')
        return { res: fault(404, 'error', 'Not Found'), entry };
      let body: unknown;
      try {
        body = JSON.parse(req.body);
      } catch {
        return {
          res: json(400, { error: { code: 400, message: 'Malformed JSON', title: 'Bad Request' } }),
          entry,
        };
      }
      const r = this.identity.authenticate(body);
      if (!r.ok)
        return {
          res: json(r.status, {
            error: {
              code: r.status,
              message: r.message,
              title: r.status === 401 ? 'Unauthorized' : 'Bad Request',
            },
          }),
          entry,
        };
      const project = this.identity.projectOf(r.record.projectId);
      return {
        res: json(
          201,
          {
            token: {
              methods: [r.record.method],
              expires_at: new Date(r.record.expiresAt).toISOString().replace('Z', '000Z'),
              issued_at: new Date(this.#now()).toISOString().replace('Z', '000Z'),
              user: { id: r.record.userId },
              project: {
                id: project?.id,
                name: project?.name,
                domain: { id: 'default', name: project?.domain },
              },
              catalog: this.#catalog(),
            },
          },
          { 'x-subject-token': r.token },
        ),
        entry,
      };
    }
    const m = /^\/compute\/([^/]+)\/(public|internal|admin)\/v2\.1(\/.*)?$/.exec(path);
    if (!m)
      return {
        res: fault(404, 'itemNotFound', 'The resource could not be found.'),
        entry: { ...base, service: 'unknown' },
      };
    const region = m[1] as string;
    const iface = m[2] as FakeInterface;
    const rest = m[3] ?? '';
    const sm =
      /^\/servers\/([^/]+)(\/action|\/metadata(?:\/([^/]+))?|\/os-instance-actions(?:\/([^/]+))?)?$/.exec(
        rest,
      );
    const isAction = sm?.[2] === '/action';
    const isInstanceActions = sm?.[2]?.startsWith('/os-instance-actions') ?? false;
    const isMetadata = sm?.[2]?.startsWith('/metadata') ?? false;
    const metadataKey = sm?.[3] === undefined ? undefined : decodeURIComponent(sm[3]);
    const serverId = sm ? decodeURIComponent(sm[1] as string) : undefined;
    let action: string | undefined;
    let rebootType: string | undefined;
    let body: Record<string, unknown> | undefined;
    if ((isAction && req.method === 'POST') || (isMetadata && req.method === 'PUT')) {
      try {
        const parsed = JSON.parse(req.body) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      action = isAction && body ? Object.keys(body)[0] : undefined;
      const t = (body?.reboot as { type?: unknown } | undefined)?.type;
      rebootType = typeof t === 'string' ? t : undefined;
    }
    const mvHeader = req.headers.get('openstack-api-version');
    const entry = {
      ...base,
      service: 'compute' as const,
      region,
      interface: iface,
      serverId,
      action,
      rebootType,
      microversion: mvHeader ?? undefined,
    };
    if (!this.regions.includes(region))
      return { res: fault(404, 'itemNotFound', 'Unknown region endpoint'), entry };

    const token = this.#validateForService(req.headers.get('x-auth-token') ?? undefined);
    if (!token)
      return {
        res: json(401, {
          error: {
            code: 401,
            message: 'The request you have made requires authentication.',
            title: 'Unauthorized',
          },
        }),
        entry,
      };

    // Microversion negotiation, as Nova does it: absent -> 2.1; "latest" -> the maximum.
    let minor = MIN_MINOR;
    if (mvHeader !== null) {
      const mm = /^compute\s+(\S+)$/i.exec(mvHeader.trim());
      if (!mm)
        return { res: fault(400, 'badRequest', 'Invalid OpenStack-API-Version header'), entry };
      const v = mm[1] as string;
      const parsed = v === 'latest' ? this.#maxMinor : parseMinor(v);
      if (parsed === undefined)
        return { res: fault(400, 'badRequest', `Invalid format for API version ${v}`), entry };
      if (parsed < MIN_MINOR || parsed > this.#maxMinor) {
        return {
          res: fault(
            406,
            'computeFault',
            `Version 2.${parsed} is not supported by the API. Minimum is 2.${MIN_MINOR} and maximum is 2.${this.#maxMinor}.`,
          ),
          entry,
        };
      }
      minor = parsed;
    }
    // Real Nova answers every request with both version headers and a request id.
    const requestId = `req-${randomUUID()}`;
    const mvHeaders = {
      'openstack-api-version': `compute 2.${minor}`,
      'x-openstack-nova-api-version': `2.${minor}`,
      vary: 'OpenStack-API-Version, X-OpenStack-Nova-API-Version',
      'x-openstack-request-id': requestId,
      'x-compute-request-id': requestId,
    };
    if (!sm || serverId === undefined)
      return {
        res: fault(404, 'itemNotFound', 'The resource could not be found.', mvHeaders),
        entry,
      };
    const live = this.compute.get(serverId);
    // From 2.21 Nova lists a deleted server's actions (read_deleted=yes); anything else 404s.
    const gone = minor >= 21 && isInstanceActions ? this.compute.deleted.get(serverId) : undefined;
    const s = live ?? gone;
    // Nova hides other projects' servers from non-admins: 404, not 403.
    if (!s || s.projectId !== token.projectId) {
      return {
        res: fault(404, 'itemNotFound', `Instance ${serverId} could not be found.`, mvHeaders),
        entry,
      };
    }
    if (isInstanceActions)
      return {
        res: this.#instanceActionsReply(s, req.method, sm[4], minor, mvHeaders),
        entry,
      };
    if (isMetadata)
      return {
        res: this.#metadata(s, req.method, metadataKey, body, token.admin, mvHeaders),
        entry,
      };
    if (!sm[2] && req.method === 'DELETE') {
      // Nova: 204, then task_state "deleting" until compute has deleted it, then 404; a
      // locked server answers 409 to non-admins.
      if (s.locked && !token.admin)
        return {
          res: fault(409, 'conflictingRequest', `Instance ${s.id} is locked`, mvHeaders),
          entry,
        };
      // nova-api records the delete before its 204 (compute/api.py _delete).
      this.#recordInstanceAction(s.id, 'delete', requestId, token.userId);
      this.compute.delete(s);
      return { res: { status: 204, headers: mvHeaders, body: '' }, entry };
    }
    if (!sm[2]) {
      if (req.method !== 'GET')
        return { res: fault(405, 'badRequest', 'Method not allowed', mvHeaders), entry };
      const server: Record<string, unknown> = {
        id: s.id,
        name: s.name,
        status: novaStatus(s),
        'OS-EXT-STS:task_state': s.taskState,
        'OS-EXT-STS:vm_state': s.vmState,
        'OS-EXT-STS:power_state': s.vmState === 'active' ? 1 : 4,
        updated: new Date(s.updatedAt).toISOString().replace(/\.\d+Z$/, 'Z'),
        image: { id: s.imageRef },
      };
      if (minor >= 9) server.locked = s.locked;
      return { res: json(200, { server }, mvHeaders), entry };
    }
    if (req.method !== 'POST')
      return { res: fault(405, 'badRequest', 'Method not allowed', mvHeaders), entry };
    if (!body) return { res: fault(400, 'badRequest', 'Malformed request body', mvHeaders), entry };
    const out = this.compute.act(s, body, { admin: token.admin });
    if (out.status === 202) {
      this.#recordInstanceAction(s.id, action, requestId, token.userId);
      return { res: { status: 202, headers: mvHeaders, body: '' }, entry };
    }
    return { res: fault(out.status, out.fault, out.message, mvHeaders), entry };
  }

  /** Nova records an accepted action in the API, before the 202: name, request id, start (to the second). */
  #recordInstanceAction(
    serverId: string,
    bodyKey: string | undefined,
    requestId: string,
    userId: string | null,
  ): void {
    const name = bodyKey === undefined ? 'unknown' : (INSTANCE_ACTION_NAMES[bodyKey] ?? bodyKey);
    const list = this.#instanceActions.get(serverId) ?? [];
    list.push({ action: name, requestId, startMs: this.#now(), userId });
    this.#instanceActions.set(serverId, list);
  }

  /**
   * The guest shut itself down (or crashed): Nova's power-state sync finds the VM off and
   * calls its own stop API with an admin context, so the server becomes SHUTOFF and a `stop`
   * action is recorded with no user (nova/compute/manager.py _sync_instance_power_state).
   */
  guestShutdown(serverId: string): void {
    const s = this.compute.get(serverId);
    if (s === undefined) throw new Error(`no server ${serverId}`);
    s.vmState = 'stopped';
    s.taskState = null;
    this.#recordInstanceAction(serverId, 'os-stop', `req-${randomUUID()}`, null);
  }

  /**
   * GET /servers/{id}/os-instance-actions[/{request_id}], newest first, as Nova answers.
   * Events (2.51+ for non-admins): one compute_<action>_instance event whose finish_time is
   * set once the server has no task any more (the latest action) or the next action began.
   */
  #instanceActionsReply(
    s: FakeServerState,
    method: string,
    requestId: string | undefined,
    minor: number,
    headers: Record<string, string>,
  ): RawResponse {
    if (method !== 'GET') return fault(405, 'badRequest', 'Method not allowed', headers);
    const list = this.#instanceActions.get(s.id) ?? [];
    const novaTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, '');
    const view = (a: FakeInstanceAction) => ({
      action: a.action,
      instance_uuid: s.id,
      request_id: a.requestId,
      start_time: novaTime(a.startMs),
      user_id: a.userId,
      message: null,
    });
    if (requestId === undefined)
      return json(200, { instanceActions: [...list].reverse().map(view) }, headers);
    const i = list.findIndex((a) => a.requestId === decodeURIComponent(requestId));
    const a = list[i];
    if (a === undefined)
      return fault(404, 'itemNotFound', `Action ${requestId} could not be found.`, headers);
    const next = list[i + 1];
    const finish =
      next !== undefined ? next.startMs : s.taskState === null ? s.updatedAt : undefined;
    const body: Record<string, unknown> = view(a);
    if (minor >= 51)
      body.events = [
        {
          event: `compute_${a.action}_instance`,
          start_time: novaTime(a.startMs),
          finish_time: finish === undefined ? null : novaTime(finish),
          result: finish === undefined ? null : 'Success',
        },
      ];
    return json(200, { instanceAction: body }, headers);
  }

  /** Nova's own record of a server's accepted actions (os-instance-actions), oldest first. */
  instanceActions(serverId: string): ReadonlyArray<{ action: string; requestId: string }> {
    return (this.#instanceActions.get(serverId) ?? []).map((a) => ({
      action: a.action,
      requestId: a.requestId,
    }));
  }

  /** The service side of token validation, with keystonemiddleware's cache when enabled. */
  #validateForService(id: string | undefined): FakeToken | undefined {
    const now = this.#now();
    const valid = this.identity.validate(id);
    if (valid) {
      if (this.#tokenCacheMs > 0 && id !== undefined && !this.#tokenCache.has(id))
        this.#tokenCache.set(id, { record: valid, until: now + this.#tokenCacheMs });
      return valid;
    }
    const cached = id === undefined ? undefined : this.#tokenCache.get(id);
    if (cached && now < cached.until && now < cached.record.expiresAt) return cached.record;
    return undefined;
  }

  /**
   * Keystone's DELETE /v3/auth/tokens: X-Auth-Token must be valid (else 401), X-Subject-Token
   * names the token to revoke (unknown or already revoked -> 404); 204 on success.
   */
  #revoke(req: RawRequest): RawResponse {
    const unauthorized = json(401, {
      error: {
        code: 401,
        message: 'The request you have made requires authentication.',
        title: 'Unauthorized',
      },
    });
    if (!this.identity.validate(req.headers.get('x-auth-token') ?? undefined)) return unauthorized;
    const subject = req.headers.get('x-subject-token');
    if (!subject || !this.identity.revoke(subject))
      return json(404, {
        error: { code: 404, message: 'Could not find token.', title: 'Not Found' },
      });
    return { status: 204, headers: {}, body: '' };
  }

  /** GET /servers/{id}/metadata and PUT /servers/{id}/metadata/{key}, as Nova documents them. */
  #metadata(
    s: FakeServerState,
    method: string,
    key: string | undefined,
    body: Record<string, unknown> | undefined,
    admin: boolean,
    headers: Record<string, string>,
  ): RawResponse {
    if (method === 'GET' && key === undefined)
      return json(200, { metadata: { ...s.metadata } }, headers);
    if (method === 'GET') {
      const v = s.metadata[key as string];
      return v === undefined
        ? fault(404, 'itemNotFound', 'Metadata item was not found', headers)
        : json(200, { meta: { [key as string]: v } }, headers);
    }
    if (method !== 'PUT' || key === undefined)
      return fault(405, 'badRequest', 'Method not allowed', headers);
    const meta = body?.meta as Record<string, unknown> | undefined;
    const keys = meta ? Object.keys(meta) : [];
    if (!meta || keys.length !== 1 || keys[0] !== key || typeof meta[key] !== 'string') {
      return fault(400, 'badRequest', 'Request body and URI mismatch', headers);
    }
    if (key.length > 255 || (meta[key] as string).length > 255)
      return fault(400, 'badRequest', 'Metadata key or value too long', headers);
    if (s.policyDenied)
      return fault(403, 'forbidden', 'Policy does not allow the metadata update.', headers);
    if (s.locked && !admin)
      return fault(409, 'conflictingRequest', `Instance ${s.id} is locked`, headers);
    const busy = this.compute.metadataConflict(s);
    if (busy !== undefined && busy.status !== 202)
      return fault(busy.status, busy.fault, busy.message, headers);
    s.metadata[key] = meta[key] as string;
    return json(200, { meta: { [key]: meta[key] } }, headers);
  }

  #dispatch(req: RawRequest): RawResponse {
    const at = this.#now();
    const hits = (f: FaultSpec) => !f.service || req.url.pathname.startsWith(`/${f.service}`);
    const fi = this.#faults.findIndex(hits);
    const outage = this.#outage !== undefined && hits(this.#outage) ? this.#outage : undefined;
    if (outage !== undefined || fi >= 0) {
      const f = outage ?? (this.#faults.splice(fi, 1)[0] as FaultSpec);
      if (f.afterForward) {
        const { res, entry } = this.#handle(req);
        this.#log.push({ ...entry, at, status: res.status, injected: false });
      }
      const service: FakeService | 'unknown' = req.url.pathname.startsWith('/identity')
        ? 'identity'
        : req.url.pathname.startsWith('/compute')
          ? 'compute'
          : 'unknown';
      this.#log.push({
        at,
        method: req.method,
        path: req.url.pathname,
        service,
        status: f.status,
        injected: true,
      });
      return fault(
        f.status,
        f.status === 401 ? 'error' : 'computeFault',
        `Injected fault (HTTP ${f.status})`,
        f.retryAfterSeconds !== undefined ? { 'retry-after': String(f.retryAfterSeconds) } : {},
      );
    }
    const { res, entry } = this.#handle(req);
    this.#log.push({ ...entry, at, status: res.status, injected: false });
    return res;
  }

  // ---- transports --------------------------------------------------------------------

  /** In-memory transport for the client: same handling, no sockets. Honours latency and timeouts. */
  readonly transport: Transport = async (req: HttpRequest): Promise<HttpResponse> => {
    const url = new URL(req.url);
    if (url.origin !== new URL(this.#baseUrl).origin) {
      throw new OpenStackError(
        'TransportError',
        `${req.method} ${url.origin}${url.pathname}: connection failed (ECONNREFUSED)`,
        undefined,
        { notSent: true },
      );
    }
    const headers = new Headers(req.headers);
    const res = this.#dispatch({ method: req.method, url, headers, body: req.body ?? '' });
    const latency = this.#latencyMs;
    if (latency > 0) {
      await new Promise((r) => setTimeout(r, Math.min(latency, req.timeoutMs)));
      if (latency >= req.timeoutMs)
        throw new OpenStackError(
          'Timeout',
          `${req.method} ${url.origin}${url.pathname}: no reply within ${req.timeoutMs} ms`,
        );
    }
    return new Response(res.status === 202 || res.body === '' ? null : res.body, {
      status: res.status,
      headers: res.headers,
    });
  };

  /** Starts serving on 127.0.0.1:<random> (HTTPS when a certificate is given). */
  async listen(tls?: { cert: string; key: string }): Promise<string> {
    if (this.#server) throw new Error('FakeOpenStack: already listening');
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = this.#dispatch({
          method: req.method ?? 'GET',
          url: new URL(req.url ?? '/', this.#baseUrl),
          headers: {
            get: (n: string) => {
              const v = req.headers[n.toLowerCase()];
              return Array.isArray(v) ? v.join(', ') : (v ?? null);
            },
          },
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const send = () => {
          res.writeHead(raw.status, raw.headers);
          res.end(raw.body);
        };
        if (this.#latencyMs > 0) setTimeout(send, this.#latencyMs);
        else send();
      });
    };
    const server = tls
      ? createHttpsServer({ cert: tls.cert, key: tls.key }, handler)
      : createHttpServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.#server = server;
    const port = (server.address() as AddressInfo).port;
    this.#baseUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
    return this.#baseUrl;
  }

  /** Stops the HTTP(S) server, cutting open connections; a no-op when not listening. */
  async close(): Promise<void> {
    const s = this.#server;
    this.#server = undefined;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** A clouds.yaml for this fake with the default credentials. */
  cloudsYaml(
    opts: {
      cloudName?: string;
      auth?: 'password' | 'application_credential';
      region?: string;
      interface?: FakeInterface;
      cacertPath?: string;
    } = {},
  ): string {
    const d = FAKE_DEFAULTS;
    const name = opts.cloudName ?? 'openstack';
    const lines = [`clouds:`, `  ${name}:`, `    auth:`, `      auth_url: ${this.authUrl}`];
    if ((opts.auth ?? 'password') === 'password') {
      lines.push(
        `      username: ${d.user.name}`,
        `      password: ${d.user.password}`,
        `      user_domain_name: ${d.domain}`,
        `      project_name: ${d.project.name}`,
        `      project_domain_name: ${d.domain}`,
        `    auth_type: password`,
      );
    } else {
      lines.push(
        `      application_credential_id: ${d.applicationCredential.id}`,
        `      application_credential_secret: ${d.applicationCredential.secret}`,
        `    auth_type: v3applicationcredential`,
      );
    }
    lines.push(
      `    region_name: ${opts.region ?? this.regions[0] ?? 'RegionOne'}`,
      `    interface: ${opts.interface ?? 'public'}`,
      `    identity_api_version: 3`,
    );
    if (opts.cacertPath) lines.push(`    cacert: ${opts.cacertPath}`);
    return `${lines.join('\n')}\n`;
  }
}
