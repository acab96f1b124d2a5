// The contract our OpenStack client relies on, written once and run against two targets: the
// real Keystone + Nova of testbed.sh and FakeOpenStack. Everything goes through our client
// (openStackClientFromCloudsYaml) except what the client has no call for (revoking a token,
// deleting a server), which is plain REST with the client's own token and endpoint so both
// targets get byte-for-byte the same requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Only these contract tests (and the remediation e2e) use our client; the test bed's own
// set-up never does, so it cannot depend on the client it checks.
import {
  createHttpTransport,
  openStackClientFromCloudsYaml,
  ServerConflict,
  ServerNotFound,
} from '@noderepair/openstack';
import type {
  OpenStackHttpRequest,
  OpenStackClient,
  ServerInfo,
  Transport,
} from '@noderepair/openstack';

export interface NovaContractTarget {
  readonly cloudsYaml: string;
  /** Cloud with password auth. */
  readonly cloudName: string;
  /** Cloud with v3applicationcredential auth. */
  readonly appCredCloudName: string;
  /** The public compute endpoint of the cloud's region, as the catalog lists it. */
  readonly expectedComputeUrl: string;
  /** Creates a server; it need not be ACTIVE yet. */
  createServer(name: string): Promise<string>;
  /** Holds every accepted task pending until resumeCompute(). */
  pauseCompute?(): Promise<void>;
  resumeCompute?(): Promise<void>;
  /** Puts the server in vm_state error, as Nova's admin os-resetState does. */
  forceError?(uuid: string): Promise<void>;
  /** Reboots the cloud itself recorded for the server (Nova: os-instance-actions). */
  countReboots(uuid: string): Promise<number>;
  close(): Promise<void>;
}

/** Records what the client sent: token issues, the last token, every compute URL. */
interface Recorder {
  readonly transport: Transport;
  tokenIssues: number;
  lastToken: string | undefined;
  readonly computeUrls: string[];
  lastComputeHeaders: { get(name: string): string | null } | undefined;
  close(): Promise<void>;
}

function recorder(): Recorder {
  const http = createHttpTransport({ verify: true });
  const r: Recorder = {
    tokenIssues: 0,
    lastToken: undefined,
    computeUrls: [],
    lastComputeHeaders: undefined,
    close: () => http.close(),
    transport: async (req: OpenStackHttpRequest) => {
      const isAuth = req.method === 'POST' && /\/auth\/tokens$/.test(new URL(req.url).pathname);
      const res = await http.transport(req);
      if (isAuth) {
        r.tokenIssues += 1;
        r.lastToken = res.headers.get('x-subject-token') ?? undefined;
      } else {
        r.computeUrls.push(req.url);
        r.lastComputeHeaders = res.headers;
      }
      return res;
    },
  };
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls through the client until the server shows `status` with no task in progress. */
async function waitFor(
  client: OpenStackClient,
  id: string,
  status: string,
  timeoutMs = 120_000,
): Promise<ServerInfo> {
  const deadline = Date.now() + timeoutMs;
  let last: ServerInfo | undefined;
  while (Date.now() < deadline) {
    last = await client.nova.getServer(id);
    if (last.status === 'ERROR' && status !== 'ERROR')
      throw new Error(`server ${id} went to ERROR while waiting for ${status}`);
    if (last.status === status && last.taskState === null) return last;
    await sleep(200);
  }
  throw new Error(
    `server ${id}: still ${last?.status ?? '?'}/${String(last?.taskState)} after ${timeoutMs} ms, expected ${status}`,
  );
}

/** Observed statuses between an action and its settling (for the fake-vs-real notes). */
export const observed: Record<string, unknown> = {};

export function describeNovaContract(name: string, setup: () => Promise<NovaContractTarget>): void {
  describe(`Nova contract: ${name}`, () => {
    let target: NovaContractTarget;
    let rec: Recorder;
    let client: OpenStackClient;
    let server: string;

    const newClient = (
      cloud: string,
      r: Recorder,
      conflict?: { attempts: number; delayMs: number },
    ) =>
      openStackClientFromCloudsYaml(target.cloudsYaml, cloud, undefined, {
        transport: r.transport,
        retry: conflict
          ? { conflictAttempts: conflict.attempts, conflictDelayMs: conflict.delayMs }
          : undefined,
      });

    const computeBase = () => {
      const url = rec.computeUrls.at(-1);
      if (url === undefined) throw new Error('no compute request recorded yet');
      return url.replace(/\/servers\/.*$/, '');
    };

    beforeAll(async () => {
      target = await setup();
      rec = recorder();
      client = newClient(target.cloudName, rec);
      server = await target.createServer(`contract-${Date.now()}`);
      await waitFor(client, server, 'ACTIVE');
    });

    afterAll(async () => {
      console.log(`observed (${name}):`, JSON.stringify(observed, null, 1));
      await rec?.close();
      await target?.close();
    });

    it('password auth: gets a token and reads the server', async () => {
      const s = await client.nova.getServer(server);
      expect(s.id).toBe(server);
      expect(s.status).toBe('ACTIVE');
      expect(s.vmState).toBe('active');
      expect(rec.tokenIssues).toBeGreaterThanOrEqual(1);
      expect(rec.lastToken?.length ?? 0).toBeGreaterThan(20);
    });

    it('application-credential auth: gets its own token and reads the server', async () => {
      const r = recorder();
      const c = newClient(target.appCredCloudName, r);
      try {
        const s = await c.nova.getServer(server);
        expect(s.id).toBe(server);
        expect(r.tokenIssues).toBe(1);
        expect(r.lastToken).not.toBe(rec.lastToken);
      } finally {
        await r.close();
      }
    });

    it('catalog selection: every compute call goes to the public endpoint of the region', () => {
      expect(rec.computeUrls.length).toBeGreaterThan(0);
      for (const u of rec.computeUrls)
        expect(u.startsWith(`${target.expectedComputeUrl.replace(/\/$/, '')}/`)).toBe(true);
    });

    it('compute replies echo the microversion in both headers and carry a request id', async () => {
      await client.nova.getServer(server);
      const h = rec.lastComputeHeaders;
      expect(h?.get('openstack-api-version')).toBe(`compute ${client.nova.microversion}`);
      expect(h?.get('x-openstack-nova-api-version')).toBe(client.nova.microversion);
      expect(h?.get('x-openstack-request-id')).toMatch(/^req-[0-9a-f-]{36}$/);
      expect(h?.get('x-compute-request-id')).toBe(h?.get('x-openstack-request-id'));
    });

    it('a revoked token (Keystone DELETE /v3/auth/tokens) is renewed transparently on 401', async () => {
      // Revoked as soon as Keystone issues it, before any service has seen it: Nova's
      // keystonemiddleware caches a token it has validated (token_cache_time, 300 s), so
      // revoking a token Nova already accepted is not seen by Nova for minutes (see README).
      const authUrl = (target.cloudsYaml.match(/auth_url:\s*(\S+)/)?.[1] ?? '').replace(/\/$/, '');
      const revoked: string[] = [];
      const r = recorder();
      const revoking: Transport = async (req) => {
        const res = await r.transport(req);
        if (revoked.length === 0 && r.lastToken !== undefined && r.tokenIssues === 1) {
          const t = r.lastToken;
          const del = await fetch(`${authUrl}/auth/tokens`, {
            method: 'DELETE',
            headers: { 'x-auth-token': t, 'x-subject-token': t },
          });
          expect(del.status).toBe(204);
          revoked.push(t);
        }
        return res;
      };
      const c = openStackClientFromCloudsYaml(target.cloudsYaml, target.cloudName, undefined, {
        transport: revoking,
      });
      try {
        const s = await c.nova.getServer(server);
        expect(s.id).toBe(server);
        expect(revoked).toHaveLength(1);
        // The first GET carried the revoked token and got 401; the client authenticated again.
        expect(r.tokenIssues).toBe(2);
        expect(r.lastToken).not.toBe(revoked[0]);
        expect(r.computeUrls).toHaveLength(2);
        const direct = await fetch(r.computeUrls[0] as string, {
          headers: { 'x-auth-token': revoked[0] as string },
        });
        expect(direct.status).toBe(401);
      } finally {
        await r.close();
      }
    });

    it('SOFT reboot passes through REBOOT and returns to ACTIVE', async () => {
      const before = await target.countReboots(server);
      await client.nova.reboot(server, 'SOFT');
      const during = await client.nova.getServer(server);
      observed[`${name}: right after SOFT`] = [during.status, during.taskState];
      expect(['REBOOT', 'ACTIVE']).toContain(during.status);
      await waitFor(client, server, 'ACTIVE');
      expect(await target.countReboots(server)).toBe(before + 1);
    });

    it('HARD reboot returns to ACTIVE', async () => {
      const before = await target.countReboots(server);
      await client.nova.reboot(server, 'HARD');
      const during = await client.nova.getServer(server);
      observed[`${name}: right after HARD`] = [during.status, during.taskState];
      expect(['HARD_REBOOT', 'ACTIVE']).toContain(during.status);
      await waitFor(client, server, 'ACTIVE');
      expect(await target.countReboots(server)).toBe(before + 1);
    });

    it('server metadata: an item written with PUT is read back (the controller keeps its action id there)', async () => {
      const value = `contract-${Date.now()}`;
      await client.nova.setMetadataItem(server, 'noderepair_contract', value);
      expect((await client.nova.getMetadata(server))['noderepair_contract']).toBe(value);
    });

    it('a reboot while another is pending: typed Conflict after the bounded retries (metadata PUT still accepted), success once resumed', async () => {
      if (!target.pauseCompute || !target.resumeCompute)
        throw new Error(`${name}: the contract needs pauseCompute/resumeCompute`);
      const before = await target.countReboots(server);
      const r = recorder();
      const bounded = newClient(target.cloudName, r, { attempts: 2, delayMs: 300 });
      await target.pauseCompute();
      let resumed = false;
      try {
        await client.nova.reboot(server, 'SOFT');
        const pending = await client.nova.getServer(server);
        observed[`${name}: SOFT held pending`] = [pending.status, pending.taskState];
        expect(pending.status).toBe('REBOOT');
        expect(pending.taskState).not.toBeNull();
        const err = await bounded.nova.reboot(server, 'SOFT').catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ServerConflict);
        expect((err as ServerConflict).code).toBe('Conflict');
        expect((err as ServerConflict).status).toBe(409);
        observed[`${name}: 409 message`] = (err as Error).message;
        // A metadata update is NOT refused while the reboot is in progress (Nova's
        // update_instance_metadata checks the vm_state only): the controller's action-id
        // write never conflicts with a reboot someone else started.
        await client.nova.setMetadataItem(server, 'noderepair_contract', 'during-reboot');
        expect((await client.nova.getMetadata(server))['noderepair_contract']).toBe(
          'during-reboot',
        );
        observed[`${name}: metadata PUT during a pending reboot`] = 'accepted';
        // The patient client keeps retrying the 409 and succeeds once the first reboot is done.
        const patient = newClient(target.cloudName, r, { attempts: 60, delayMs: 500 });
        const retried = patient.nova.reboot(server, 'SOFT');
        await sleep(1_000);
        await target.resumeCompute();
        resumed = true;
        await retried;
        await waitFor(client, server, 'ACTIVE');
      } finally {
        if (!resumed) await target.resumeCompute();
        await r.close();
      }
      // Two accepted reboots; the rejected attempts left no record.
      expect(await target.countReboots(server)).toBe(before + 2);
    });

    it('os-stop -> SHUTOFF, a SOFT reboot of SHUTOFF is a Conflict, metadata may change, os-start -> ACTIVE', async () => {
      await client.nova.stop(server);
      const stopping = await client.nova.getServer(server);
      observed[`${name}: right after os-stop`] = [stopping.status, stopping.taskState];
      const stopped = await waitFor(client, server, 'SHUTOFF');
      expect(stopped.vmState).toBe('stopped');
      const r = recorder();
      const bounded = newClient(target.cloudName, r, { attempts: 1, delayMs: 0 });
      try {
        const soft = await bounded.nova.reboot(server, 'SOFT').catch((e: unknown) => e);
        expect(soft).toBeInstanceOf(ServerConflict);
        const stop = await bounded.nova.stop(server).catch((e: unknown) => e);
        expect(stop).toBeInstanceOf(ServerConflict);
        observed[`${name}: 409 texts on SHUTOFF`] = [
          (soft as Error).message,
          (stop as Error).message,
        ];
      } finally {
        await r.close();
      }
      // SHUTOFF (vm_state stopped) is one of the states that allow a metadata update.
      await client.nova.setMetadataItem(server, 'noderepair_contract', 'while-stopped');
      expect((await client.nova.getMetadata(server))['noderepair_contract']).toBe('while-stopped');
      await client.nova.start(server);
      const starting = await client.nova.getServer(server);
      observed[`${name}: right after os-start`] = [starting.status, starting.taskState];
      const started = await waitFor(client, server, 'ACTIVE');
      expect(started.vmState).toBe('active');
    });

    it('reboot counts: the cloud records exactly one reboot per client reboot call', async () => {
      const fresh = await target.createServer(`contract-count-${Date.now()}`);
      const created = await client.nova.getServer(fresh);
      observed[`${name}: right after create`] = [
        created.status,
        created.vmState,
        created.taskState,
      ];
      await waitFor(client, fresh, 'ACTIVE');
      expect(await target.countReboots(fresh)).toBe(0);
      for (const type of ['SOFT', 'HARD', 'SOFT'] as const) {
        await client.nova.reboot(fresh, type);
        await waitFor(client, fresh, 'ACTIVE');
      }
      expect(await target.countReboots(fresh)).toBe(3);
    });

    it('an ERROR server: metadata PUT is a Conflict (vm_state error), a HARD reboot is accepted and brings it back', async () => {
      if (!target.forceError) throw new Error(`${name}: the contract needs forceError`);
      const broken = await target.createServer(`contract-error-${Date.now()}`);
      await waitFor(client, broken, 'ACTIVE');
      await target.forceError(broken);
      expect((await client.nova.getServer(broken)).status).toBe('ERROR');
      // The controller writes its action id to the metadata before every reboot: on an
      // ERROR server Nova refuses that write although it accepts the HARD reboot itself.
      const err = await client.nova
        .setMetadataItem(broken, 'noderepair_contract', 'on-error')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerConflict);
      expect((err as Error).message).toContain(
        `Cannot 'update metadata' instance ${broken} while it is in vm_state error`,
      );
      observed[`${name}: metadata PUT on ERROR`] = (err as Error).message;
      await client.nova.reboot(broken, 'HARD');
      const during = await client.nova.getServer(broken);
      observed[`${name}: right after HARD from ERROR`] = [during.status, during.taskState];
      // vm_state error shows ERROR until the reboot is done, so waitFor (which fails on
      // ERROR) cannot be used here.
      const deadline = Date.now() + 120_000;
      let s = during;
      while (Date.now() < deadline && !(s.status === 'ACTIVE' && s.taskState === null)) {
        await sleep(250);
        s = await client.nova.getServer(broken);
      }
      expect([s.status, s.vmState, s.taskState]).toEqual(['ACTIVE', 'active', null]);
      expect(await target.countReboots(broken)).toBe(1);
    });

    it('a deleted server: DELETE 204, then GET and reboot give ServerNotFound', async () => {
      const doomed = await target.createServer(`contract-doomed-${Date.now()}`);
      await waitFor(client, doomed, 'ACTIVE');
      const res = await fetch(`${computeBase()}/servers/${doomed}`, {
        method: 'DELETE',
        headers: { 'x-auth-token': rec.lastToken as string },
      });
      expect(res.status).toBe(204);
      observed[`${name}: right after DELETE`] = await client.nova.getServer(doomed).then(
        (s) => [s.status, s.taskState],
        (e: unknown) => (e as Error).name,
      );
      const deadline = Date.now() + 60_000;
      let err: unknown;
      while (Date.now() < deadline) {
        err = await client.nova.getServer(doomed).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (err !== undefined) break;
        await sleep(250);
      }
      expect(err).toBeInstanceOf(ServerNotFound);
      expect((err as ServerNotFound).serverId).toBe(doomed);
      expect((err as ServerNotFound).message).toContain(`Instance ${doomed} could not be found.`);
      await expect(client.nova.reboot(doomed, 'HARD')).rejects.toBeInstanceOf(ServerNotFound);
    });
  });
}
