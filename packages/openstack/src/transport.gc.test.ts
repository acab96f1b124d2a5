// The request deadline must fire even when the garbage collector runs while a request waits
// for a reply that never comes (nodejs/node#57736: a timeout signal inside AbortSignal.any()
// can be collected before it fires, and the request then hangs for ever; the chaos suite's
// "no reply at all" row hung for 300 s that way under load). A child process with --expose-gc
// forces collections every 20 ms while our transport waits on a server that never answers.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const transportTs = fileURLToPath(new URL('./transport.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'transport-gc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCRIPT = `
import { createServer } from 'node:http';
import { createHttpTransport } from ${JSON.stringify(transportTs)};
const srv = createServer(() => {}); // never replies
await new Promise((r) => srv.listen(0, '127.0.0.1', r));
const { transport, close } = createHttpTransport();
const caller = new AbortController(); // a controller's term that stays open
const gcs = setInterval(() => globalThis.gc(), 20);
const t0 = Date.now();
const outcome = transport({
  method: 'POST',
  url: 'http://127.0.0.1:' + srv.address().port + '/servers/x/action',
  headers: {},
  body: '{}',
  timeoutMs: 300,
  signal: caller.signal,
}).then(
  () => ({ kind: 'replied' }),
  (e) => ({ kind: 'rejected', code: e.code, afterMs: Date.now() - t0 }),
);
// A hang guard, not a speed claim: ten times the deadline.
const hung = new Promise((r) => setTimeout(() => r({ kind: 'hung' }), 3000));
const result = await Promise.race([outcome, hung]);
clearInterval(gcs);
srv.closeAllConnections();
srv.close();
await close().catch(() => {});
process.stdout.write(JSON.stringify(result));
process.exit(0);
`;

describe('HTTP transport deadline under garbage collection', () => {
  it('a request without a reply ends with Timeout although the GC runs while it waits', () => {
    const file = join(dir, 'gc-deadline.mjs');
    writeFileSync(file, SCRIPT);
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', file], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 30_000,
    });
    const result = JSON.parse(out) as { kind: string; code?: string; afterMs?: number };
    expect(result).toMatchObject({ kind: 'rejected', code: 'Timeout' });
    expect(result.afterMs).toBeGreaterThanOrEqual(300);
  });
});
