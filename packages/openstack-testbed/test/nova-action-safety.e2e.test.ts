// issue 21 against the REAL Keystone + Nova of the testbed, through NovaMachineProvider:
// - 502 after forward: a small HTTP proxy (this test's own, a real TCP hop) in front of the
//   real nova-api forwards the reboot POST, lets Nova act, then answers 502 as a load balancer
//   whose upstream reply was lost does. Exactly one reboot in Nova's os-instance-actions, and
//   the outcome is Accepted (found in those records, not resent).
// - outage: keystone and nova-api stopped; execute and fence are Unavailable (no Rejected, so
//   no ladder attempt would be used); once they are back the same action id runs exactly once.
// - fence: NotFenced right after a HARD reboot is accepted while nova-compute is held, then
//   ResetObserved once Nova records the reboot finished.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpTransport,
  NovaMachineProvider,
  openStackClientFromCloudsYaml,
  type Transport,
} from '@noderepair/openstack';
import { startOpenStackTestbed, type OpenStackTestbed } from '../src/index.js';
import { TESTBED_CLOUD } from './support/testbed-world.js';

let tb: OpenStackTestbed;
const ctx = { signal: new AbortController().signal };

beforeAll(async () => {
  tb = await startOpenStackTestbed();
});

/** A proxy to nova-api that answers the next `lose` server-action POSTs with 502 AFTER Nova answered. */
async function novaProxy(
  target: URL,
): Promise<{ url: string; lose: number; close(): Promise<void> }> {
  const state = { lose: 0 };
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
            const isAction = req.method === 'POST' && /\/action$/.test(req.url ?? '');
            if (isAction && state.lose > 0) {
              state.lose -= 1;
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
    get lose() {
      return state.lose;
    },
    set lose(n: number) {
      state.lose = n;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

function provider(transport?: Transport) {
  const client = openStackClientFromCloudsYaml(tb.cloudsYaml, TESTBED_CLOUD, undefined, {
    ...(transport ? { transport } : {}),
    retry: { maxAttempts: 2, baseDelayMs: 200 },
  });
  return { client, provider: new NovaMachineProvider(client.nova) };
}

/**
 * What the controller does: ask again (as a replay) while the cloud is Unavailable. A freshly
 * started nova-api on this testbed needs over a minute before it answers within the client's
 * timeout; its late 202s are exactly the "maybe sent" case, answered from the records.
 */
async function untilAnswered(
  p: NovaMachineProvider,
  req: Parameters<NovaMachineProvider['execute']>[0],
): Promise<{ out: Awaited<ReturnType<NovaMachineProvider['execute']>>; unavailable: number }> {
  let unavailable = 0;
  const deadline = Date.now() + 240_000;
  for (let replay = req.replay; ; replay = true) {
    const out = await p.execute({ ...req, replay }, ctx);
    if (out.kind !== 'Unavailable' || Date.now() > deadline) return { out, unavailable };
    unavailable += 1;
    await new Promise((r) => setTimeout(r, 3_000));
  }
}

/** Nova writes times without a zone; they are UTC. */
const novaUtc = (t: string) => (/(Z|[+-]\d\d:?\d\d)$/i.test(t) ? t : `${t}Z`);

const reboots = async (id: string) =>
  (await tb.novaActions(id)).filter((a) => a.action === 'reboot');

describe('NovaMachineProvider on the REAL Nova (testbed)', () => {
  let serverId: string;
  beforeAll(async () => {
    serverId = await tb.createServer('safety-worker');
    await tb.waitForServer(serverId, 'ACTIVE');
  });
  afterAll(async () => {
    await tb.startServices(['keystone', 'nova-api']).catch(() => undefined);
  });

  it('502 after the reboot was forwarded: not resent, found in os-instance-actions, Accepted', async () => {
    // nova-api's port (README: Nova 8774 on loopback), as the catalog names it.
    const compute = new URL('http://127.0.0.1:8774');
    const proxy = await novaProxy(compute);
    const http = createHttpTransport();
    // Every compute call goes through the proxy (the catalog names nova-api itself).
    const viaProxy: Transport = (req) =>
      http.transport({ ...req, url: req.url.replace(compute.origin, proxy.url) });
    const { provider: p, client } = provider(viaProxy);
    try {
      proxy.lose = 1;
      const issuedAt = Date.now();
      const out = await p.execute(
        {
          node: 'n',
          providerID: `openstack:///${serverId}`,
          action: 'HardReboot',
          actionId: 'safety/step-0/attempt-1',
          issuedAt,
          replay: false,
        },
        ctx,
      );
      expect(proxy.lose).toBe(0);
      expect(out).toMatchObject({
        kind: 'Accepted',
        message: expect.stringContaining('not sent again'),
      });
      const rs = await reboots(serverId);
      expect(rs).toHaveLength(1);
      expect((out as { ref?: string }).ref).toBe(rs[0]?.requestId);
      await tb.waitForServer(serverId, 'ACTIVE');
    } finally {
      await client.close();
      await http.close();
      await proxy.close();
    }
  });

  it(
    'keystone and nova-api down: Unavailable (never Rejected), then exactly one reboot once they are back',
    { timeout: 600_000 },
    async () => {
      // Nova's records name an attempt by action and start time, allowing 5 s of clock skew:
      // the previous test's reboot, seconds ago, would pass for this attempt's record (and
      // then nothing would be sent). Begin this attempt after that window.
      const earlier = await reboots(serverId);
      const newest = Math.max(0, ...earlier.map((a) => Date.parse(novaUtc(a.startTime))));
      const wait = newest + 7_000 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const before = earlier.length;
      const { provider: p, client } = provider();
      try {
        await tb.stopServices(['keystone', 'nova-api']);
        const req = {
          node: 'n',
          providerID: `openstack:///${serverId}`,
          action: 'SoftReboot' as const,
          actionId: 'safety/step-1/attempt-1',
          issuedAt: Date.now(),
          replay: false,
        };
        const down = await p.execute(req, ctx);
        expect(down).toMatchObject({ kind: 'Unavailable', maybeSent: false });
        const fence = await p.fence({ ...req, action: 'HardReboot' }, ctx);
        expect(fence.kind).toBe('Unavailable');
        await tb.startServices(['keystone', 'nova-api']);
        const up = await untilAnswered(p, { ...req, replay: true });
        console.log(`outage: ${up.unavailable} Unavailable answer(s) after the restart`);
        expect(up.out).toMatchObject({ kind: 'Accepted' });
        // Asked again (a second replay): Nova's records answer, nothing is sent.
        const again = await provider().provider.execute({ ...req, replay: true }, ctx);
        expect(again).toMatchObject({
          kind: 'Accepted',
          message: expect.stringContaining('not sent again'),
        });
        expect((await reboots(serverId)).length).toBe(before + 1);
        await tb.waitForServer(serverId, 'ACTIVE');
      } finally {
        await tb.startServices(['keystone', 'nova-api']);
        await client.close();
      }
    },
  );

  it(
    'fence: NotFenced while the HARD reboot is in progress, ResetObserved once Nova finished it',
    { timeout: 600_000 },
    async () => {
      const { provider: p, client } = provider();
      try {
        // The intent comes well after the earlier reboots (beyond the clock-skew allowance).
        await new Promise((r) => setTimeout(r, 7_000));
        const q = {
          node: 'n',
          providerID: `openstack:///${serverId}`,
          action: 'HardReboot' as const,
          actionId: 'safety/step-2/attempt-1',
          issuedAt: Date.now(),
        };
        await tb.pauseCompute();
        try {
          const sent = await untilAnswered(p, { ...q, replay: false });
          expect(sent.out).toMatchObject({ kind: 'Accepted' });
          expect(await p.fence(q, ctx)).toMatchObject({ kind: 'NotFenced' });
        } finally {
          await tb.resumeCompute();
        }
        await tb.waitForServer(serverId, 'ACTIVE');
        const deadline = Date.now() + 60_000;
        let f = await p.fence(q, ctx);
        while (f.kind !== 'Fenced' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 1_000));
          f = await p.fence(q, ctx);
        }
        expect(f).toMatchObject({ kind: 'Fenced', how: 'ResetObserved' });
      } finally {
        await client.close();
      }
    },
  );
});
