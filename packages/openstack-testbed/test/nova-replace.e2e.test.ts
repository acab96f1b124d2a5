// issue 22 against the REAL Keystone + Nova of the testbed: Replace without Cluster API is
// "delete the Nova server", through the provider `noderepair run --provider openstack` loads
// (@noderepair/openstack/provider, built from a real clouds.yaml file):
// - Replace deletes the server; a replay (intent persisted, outcome lost: a fresh provider,
//   as after a restart, with replay: true) sends no second DELETE; fence is Deleted once the
//   server is gone. Nova's own os-instance-actions are the count: one `delete`.
// - A lost reply: a proxy (this test's own TCP hop) in front of nova-api forwards the DELETE,
//   lets Nova act, then answers 502. Accepted from Nova's records, exactly one `delete`.
// - The module finds clouds.yaml through OS_CLIENT_CONFIG_FILE and the cloud through OS_CLOUD
//   (password auth), as the CLI's users set them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterConfig } from '@noderepair/core/kube';
import type { ActionRequest, FenceStatus, MachineProvider } from '@noderepair/core/provider';
import { silentLogger } from '@noderepair/core/runtime';
import {
  createHttpTransport,
  NovaMachineProvider,
  openStackClientFromCloudsYaml,
  type Transport,
} from '@noderepair/openstack';
import { providerModule } from '@noderepair/openstack/provider';
import { startOpenStackTestbed, type OpenStackTestbed } from '../src/index.js';
import { TESTBED_CLOUD } from './support/testbed-world.js';

let tb: OpenStackTestbed;
let dir: string;
let cloudsYamlPath: string;
const ctx = { signal: new AbortController().signal };

beforeAll(async () => {
  tb = await startOpenStackTestbed();
  dir = await mkdtemp(join(tmpdir(), 'nova-replace-'));
  cloudsYamlPath = join(dir, 'clouds.yaml');
  await writeFile(cloudsYamlPath, tb.cloudsYaml, { mode: 0o600 });
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function create(
  options: Record<string, string>,
  env: Record<string, string | undefined> = {},
): Promise<MachineProvider> {
  return Promise.resolve(
    providerModule.create({
      cluster: {} as ClusterConfig,
      options,
      env,
      log: silentLogger,
      signal: new AbortController().signal,
    }),
  );
}

const deletes = async (id: string) =>
  (await tb.novaActions(id)).filter((a) => a.action === 'delete');

function replaceOf(serverId: string, actionId: string): ActionRequest {
  return {
    node: `node-${serverId.slice(0, 8)}`,
    providerID: `openstack:///${serverId}`,
    action: 'Replace',
    actionId,
    issuedAt: Date.now(),
    replay: false,
  };
}

/** Asks fence until Nova says the server is gone (fake virt driver: seconds). */
async function untilFenced(p: MachineProvider, q: ActionRequest): Promise<FenceStatus> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const f = await p.fence(q, ctx);
    if (f.kind === 'Fenced' || Date.now() > deadline) return f;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** A proxy to nova-api that answers the next `lose` DELETEs with 502 AFTER Nova answered. */
async function novaProxy(
  target: URL,
): Promise<{ url: string; lost: number; close(): Promise<void> }> {
  const state = { lose: 1, lost: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on('data', (c: Buffer) => body.push(c));
          upRes.on('end', () => {
            if (req.method === 'DELETE' && state.lose > 0) {
              state.lose -= 1;
              state.lost += 1;
              res.writeHead(502, { 'content-type': 'text/html' });
              res.end('<html><body>502 Bad Gateway</body></html>');
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      up.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get lost() {
      return state.lost;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('Replace = delete the Nova server, on the REAL Nova (testbed)', () => {
  it(
    'providerModule from a clouds.yaml file: Replace deletes the server once; a replay sends nothing; fence Deleted once gone',
    { timeout: 300_000 },
    async () => {
      const serverId = await tb.createServer('replace-worker');
      await tb.waitForServer(serverId, 'ACTIVE');
      const opts = { 'clouds-yaml': cloudsYamlPath, cloud: TESTBED_CLOUD };
      const p = await create(opts);
      expect(p.actions.has('Replace')).toBe(true);
      const req = replaceOf(serverId, 'replace/step-3/attempt-1');
      expect(await p.fence(req, ctx)).toMatchObject({
        kind: 'NotFenced',
        reason: expect.stringContaining('ACTIVE'),
      });

      const out = await p.execute(req, ctx);
      expect(out).toMatchObject({ kind: 'Accepted' });
      const recorded = await deletes(serverId);
      expect(recorded).toHaveLength(1);
      expect((out as { ref?: string }).ref).toBe(recorded[0]?.requestId);

      // The intent was persisted, its outcome lost (a restart): a new provider, replay: true.
      const again = await (await create(opts)).execute({ ...req, replay: true }, ctx);
      expect(again).toMatchObject({
        kind: 'Accepted',
        message: expect.stringContaining('no DELETE sent'),
      });

      const f = await untilFenced(p, req);
      expect(f).toMatchObject({ kind: 'Fenced', how: 'Deleted' });
      expect(f.kind === 'Fenced' && f.evidence).toContain(recorded[0]?.requestId);
      // Gone: the replay again sends nothing.
      expect(await (await create(opts)).execute({ ...req, replay: true }, ctx)).toMatchObject({
        kind: 'Accepted',
        message: expect.stringContaining('not found'),
      });
      // Nova's records of the deleted server (2.21+): one delete, whatever was asked.
      expect(await deletes(serverId)).toHaveLength(1);
    },
  );

  it(
    'the reply to the DELETE is lost (502 after Nova acted): not resent, Accepted from Nova’s records, one delete',
    { timeout: 300_000 },
    async () => {
      const serverId = await tb.createServer('replace-lost-reply');
      await tb.waitForServer(serverId, 'ACTIVE');
      const compute = new URL('http://127.0.0.1:8774');
      const proxy = await novaProxy(compute);
      const http = createHttpTransport();
      const viaProxy: Transport = (r) =>
        http.transport({ ...r, url: r.url.replace(compute.origin, proxy.url) });
      const client = openStackClientFromCloudsYaml(tb.cloudsYaml, TESTBED_CLOUD, undefined, {
        transport: viaProxy,
        retry: { maxAttempts: 2, baseDelayMs: 200 },
      });
      try {
        const p = new NovaMachineProvider(client.nova, { replace: 'DeleteServer' });
        const req = replaceOf(serverId, 'lost/step-3/attempt-1');
        const out = await p.execute(req, ctx);
        expect(proxy.lost).toBe(1);
        expect(out).toMatchObject({
          kind: 'Accepted',
          message: expect.stringContaining('no DELETE sent'),
        });
        expect(await untilFenced(p, req)).toMatchObject({ kind: 'Fenced', how: 'Deleted' });
        expect(await deletes(serverId)).toHaveLength(1);
      } finally {
        await client.close();
        await http.close();
        await proxy.close();
      }
    },
  );

  it(
    'OS_CLIENT_CONFIG_FILE and OS_CLOUD (password auth) build a working provider; a missing cloud names --cloud',
    { timeout: 300_000 },
    async () => {
      const env = { OS_CLIENT_CONFIG_FILE: cloudsYamlPath, OS_CLOUD: 'testbed' };
      await expect(create({}, { OS_CLIENT_CONFIG_FILE: cloudsYamlPath })).rejects.toThrow(
        /--cloud/,
      );
      const serverId = await tb.createServer('replace-env');
      await tb.waitForServer(serverId, 'ACTIVE');
      const p = await create({}, env);
      const req = replaceOf(serverId, 'env/step-3/attempt-1');
      expect(await p.execute(req, ctx)).toMatchObject({ kind: 'Accepted' });
      expect(await untilFenced(p, req)).toMatchObject({ kind: 'Fenced', how: 'Deleted' });
      expect(await deletes(serverId)).toHaveLength(1);
    },
  );
});
