// freePort must not hand out a port from the kernel's range for outgoing connections' source
// ports: a neighbour's connection could take it between our check and the server's bind
// (a CI gate's chaos file failed to start its control plane beside a busy second lane).
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort } from './ports.js';

describe('freePort', () => {
  it('returns bindable ports below the ephemeral range', async () => {
    const [low] = ephemeralRange();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(low);
      await new Promise<void>((resolve, reject) => {
        const srv = createServer();
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
      });
    }
  });

  it('skips a port someone is listening on', async () => {
    const held = new Set<number>();
    const servers = [];
    // Hold 50 ports of the range; none of them may come back.
    for (let i = 0; i < 50; i++) {
      const port = await freePort();
      const srv = createServer();
      await new Promise<void>((resolve) => srv.listen(port, '127.0.0.1', () => resolve()));
      servers.push(srv);
      held.add(port);
    }
    for (let i = 0; i < 50; i++) expect(held.has(await freePort())).toBe(false);
    for (const s of servers) await new Promise((r) => s.close(r));
  });

  it('never hands out the same port twice in a process, even before anything binds it', async () => {
    // 500 draws from ~12,000 ports collide with near certainty if nothing prevents it.
    const ports = [];
    for (let i = 0; i < 500; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});
