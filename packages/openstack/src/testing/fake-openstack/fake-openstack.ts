// FakeOpenStack: a FAKE Keystone v3 + Nova for tests, following shared/reference/openstack.md.
// It is not OpenStack: it implements only what remediation uses (token issue, catalog,
// server GET and the reboot/start/stop/rebuild actions) with the documented status codes
// (202/400/401/403/404/406/409), plus fault injection and a request log so tests can count
// reboots per server. Two ways in:
//   - `fake.transport`: in memory, for unit tests (no sockets);
//   - `await fake.listen()`: a real HTTP(S) server on a random loopback port.
//
// The services live beside it: keystone.ts, nova-servers.ts and nova-instance-actions.ts over
// FakeIdentity and FakeCompute, faults.ts, router.ts (faults, then a service, then the log),
// transports.ts.
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Transport } from '../../transport.js';
import { cloudsYaml } from './clouds-yaml.js';
import {
  FakeCompute,
  novaStatus,
  type AddServerOptions,
  type FakeServerState,
} from './fake-compute.js';
import { FakeIdentity } from './fake-identity.js';
import { FaultInjector } from './faults.js';
import { catalog, FakeKeystone } from './keystone.js';
import { FakeInstanceActions } from './nova-instance-actions.js';
import { FakeNova, parseMinor } from './nova-servers.js';
import {
  FAKE_DEFAULTS,
  type FakeInterface,
  type FakeOpenStackOptions,
  type FakeRequestLogEntry,
  type FaultSpec,
} from './options.js';
import { FakeRouter } from './router.js';
import { listenHttp, memoryTransport } from './transports.js';

/**
 * A FAKE Keystone v3 and Nova, in memory (its `transport`) or over HTTP(S) (`listen`), for tests
 * only. Servers change state on the injected clock; faults, outages, latency and revoked tokens are
 * injected through its controls.
 */
export class FakeOpenStack {
  /** The fake Keystone: users, projects, credentials and tokens. */
  readonly identity: FakeIdentity;
  /** The fake Nova: servers and their state machine. */
  readonly compute: FakeCompute;
  /** Regions with endpoints in the catalog. */
  readonly regions: readonly string[];
  /** In-memory transport for the client: same handling, no sockets. Honours latency and timeouts. */
  readonly transport: Transport;
  readonly #log: FakeRequestLogEntry[] = [];
  readonly #faults = new FaultInjector();
  readonly #actions: FakeInstanceActions;
  readonly #router: FakeRouter;
  readonly #now: () => number;
  #latencyMs = 0;
  #baseUrl = 'http://openstack.fake.invalid';
  #server: Server | undefined;
  /** What the transports reach: the router, the current URL and latency. */
  readonly #wire = {
    dispatch: (req: Parameters<FakeRouter['dispatch']>[0]) => this.#router.dispatch(req),
    baseUrl: () => this.#baseUrl,
    latencyMs: () => this.#latencyMs,
  };

  constructor(opts: FakeOpenStackOptions = {}) {
    this.#now = opts.now ?? Date.now;
    this.regions = opts.regions ?? ['RegionOne'];
    const maxMinor = parseMinor(opts.maxMicroversion ?? '2.96');
    if (maxMinor === undefined)
      throw new Error(`FakeOpenStack: maxMicroversion must look like 2.<minor>`);
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
    this.#actions = new FakeInstanceActions(this.#now);
    const keystone = new FakeKeystone(
      this.identity,
      this.#now,
      (opts.serviceTokenCacheSeconds ?? 0) * 1000,
      () => catalog(this.regions, this.authUrl, (r, i) => this.computeUrl(r, i)),
    );
    const nova = new FakeNova(this.compute, keystone, this.#actions, this.regions, maxMinor);
    this.#router = new FakeRouter(this.#now, this.#faults, keystone, nova, this.#log);
    this.transport = memoryTransport(this.#wire);
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
    this.#faults.setOutage(spec);
  }

  /** The next `count` requests (optionally of one service) fail with the given status. */
  failNext(count: number, spec: FaultSpec): void {
    this.#faults.failNext(count, spec);
  }

  /** Every reply is delayed by this much (after the request took effect, like a slow link). */
  setLatency(ms: number): void {
    this.#latencyMs = ms;
  }

  /** Revokes every issued token: the next service call gets 401. */
  revokeTokens(): void {
    this.identity.revokeAll();
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
    this.#actions.record(serverId, 'os-stop', `req-${randomUUID()}`, null);
  }

  /**
   * A person stopped the server (`openstack server stop`, the dashboard, a script) with their
   * own credentials: SHUTOFF, and a `stop` action recorded with their user id, as nova-api
   * records it before its 202. Not through this fake's HTTP API, so the request log (which
   * counts the controller's requests) does not show it.
   */
  userStop(serverId: string, userId = 'operator-user'): void {
    const s = this.compute.get(serverId);
    if (s === undefined) throw new Error(`no server ${serverId}`);
    s.vmState = 'stopped';
    s.taskState = null;
    this.#actions.record(serverId, 'os-stop', `req-${randomUUID()}`, userId);
  }

  /** A person started the server again (`openstack server start`): ACTIVE, `start` recorded. */
  userStart(serverId: string, userId = 'operator-user'): void {
    const s = this.compute.get(serverId);
    if (s === undefined) throw new Error(`no server ${serverId}`);
    s.vmState = 'active';
    s.taskState = null;
    this.#actions.record(serverId, 'os-start', `req-${randomUUID()}`, userId);
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

  /** Nova's own record of a server's accepted actions (os-instance-actions), oldest first. */
  instanceActions(serverId: string): ReadonlyArray<{ action: string; requestId: string }> {
    return this.#actions.list(serverId);
  }

  // ---- transports --------------------------------------------------------------------

  /** Starts serving on 127.0.0.1:<random> (HTTPS when a certificate is given). */
  async listen(tls?: { cert: string; key: string }): Promise<string> {
    if (this.#server) throw new Error('FakeOpenStack: already listening');
    const { server, baseUrl } = await listenHttp(this.#wire, tls);
    this.#server = server;
    this.#baseUrl = baseUrl;
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
    return cloudsYaml(this.authUrl, this.regions, opts);
  }
}
