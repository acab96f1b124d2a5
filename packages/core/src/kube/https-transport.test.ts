// The buffered request decodes the body chunk by chunk: a UTF-8 character split between two
// chunks must come out whole (a per-chunk toString would turn it into two U+FFFD).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpsTransport } from './https-transport.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

describe('HttpsTransport.request', () => {
  it('decodes a multi-byte character split across chunks', async () => {
    const bytes = Buffer.from(JSON.stringify({ name: 'nœud-é-ü' }), 'utf8');
    const cut = bytes.indexOf(Buffer.from('œ')) + 1; // inside the two-byte character
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(bytes.subarray(0, cut));
      // A separate chunk on the wire: the client sees the split.
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const t = new HttpsTransport({
      server: `http://127.0.0.1:${port}`,
      credentials: async () => ({ tls: {}, headers: {} }),
    });
    const res = await t.request({ method: 'GET', path: '/api/v1/nodes' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ name: 'nœud-é-ü' });
  });
});
