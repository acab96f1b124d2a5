// docs/providers.md: its example provider is packages/core/examples/http-power-provider.ts
// verbatim (which the examples' type-check compiles against the published declarations),
// and that module, loaded the way `noderepair run --provider-module` loads it, keeps the
// promises the page describes against a real HTTP server playing the power API.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProviderModule } from '../../packages/core/src/provider/load.js';
import {
  ProviderActions,
  type MachineProvider,
  type ProviderModule,
} from '../../packages/core/src/provider/index.js';
import { silentLogger } from '../../packages/core/src/runtime/logger.js';
import { repoRoot } from './reference.js';

const examplePath = join(repoRoot, 'packages', 'core', 'examples', 'http-power-provider.ts');

describe('docs/providers.md', () => {
  it('embeds the example provider verbatim', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'providers.md'), 'utf8');
    expect(doc).toContain(`\`\`\`ts\n${readFileSync(examplePath, 'utf8').trim()}\n\`\`\``);
  });

  it('has a row for every ProviderAction, and says what a throw from each call means', () => {
    const doc = readFileSync(join(repoRoot, 'docs', 'providers.md'), 'utf8');
    for (const action of ProviderActions)
      expect(doc, `the actions table's row for ${action}`).toMatch(
        new RegExp(`^\\| \`${action}\` +\\|`, 'm'),
      );
    const throws = doc.slice(doc.indexOf('## When a call throws'));
    for (const call of ['execute', 'fence', 'powerState'])
      expect(throws, call).toContain(`**\`${call}\` throws**`);
  });
});

describe('the example provider against a real HTTP power API', () => {
  // The power API: one reset per Idempotency-Key, a record per reset, and switches to answer
  // 503 or 409 (refusal) for the next POST.
  const resets = new Map<string, { machine: string; done: boolean }>();
  const posts: string[] = [];
  let next: number | undefined;
  let server: Server;
  let module: ProviderModule;
  let provider: MachineProvider;
  const ctx = { signal: new AbortController().signal };
  const req = (actionId: string, replay = false) => ({
    node: 'rack1-07',
    providerID: 'power:///rack1-07',
    action: 'HardReboot' as const,
    actionId,
    issuedAt: Date.now(),
    replay,
  });

  beforeAll(async () => {
    server = createServer((rq, rs) => {
      const key = String(rq.headers['idempotency-key'] ?? '');
      const reset = /^\/machines\/([^/]+)\/reset$/.exec(rq.url ?? '');
      if (rq.method === 'POST' && reset) {
        posts.push(`${reset[1]} ${key}`);
        if (next !== undefined) {
          rs.writeHead(next).end();
          next = undefined;
          return;
        }
        if (!resets.has(key)) resets.set(key, { machine: reset[1]!, done: true });
        rs.writeHead(202).end();
        return;
      }
      const record = /^\/resets\/([^/]+)$/.exec(rq.url ?? '');
      const r = record ? resets.get(decodeURIComponent(record[1]!)) : undefined;
      if (r === undefined) rs.writeHead(404).end();
      else rs.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const loaded = await loadProviderModule(
      { kind: 'module', spec: examplePath },
      { cwd: repoRoot },
    );
    if (loaded._tag === 'Left') throw new Error(loaded.left);
    module = loaded.right;
    provider = await module.create({
      cluster: {} as never,
      options: { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` },
      env: {},
      log: silentLogger,
      signal: ctx.signal,
    });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('declares its name, options and the one step it can do', () => {
    expect(module.name).toBe('http-power');
    expect(Object.keys(module.options)).toEqual(['endpoint']);
    expect([...provider.actions]).toEqual(['HardReboot']);
    expect(() =>
      module.create({
        cluster: {} as never,
        options: {},
        env: {},
        log: silentLogger,
        signal: ctx.signal,
      }),
    ).toThrow('needs --provider-opt endpoint=URL');
  });

  it('resets once per action id, reports outages as Unavailable, refusals as Rejected, and fences on the record', async () => {
    expect(await provider.fence({ ...req('r1/HardReboot-1') }, ctx)).toEqual({
      kind: 'NotFenced',
      reason: 'no reset r1/HardReboot-1 on record',
    });
    expect(await provider.execute(req('r1/HardReboot-1'), ctx)).toMatchObject({
      kind: 'Accepted',
    });
    expect(await provider.execute(req('r1/HardReboot-1', true), ctx)).toMatchObject({
      kind: 'Accepted',
    });
    expect([...resets.keys()]).toEqual(['r1/HardReboot-1']);
    expect(await provider.fence({ ...req('r1/HardReboot-1') }, ctx)).toMatchObject({
      kind: 'Fenced',
      how: 'ResetObserved',
    });
    next = 503;
    expect(await provider.execute(req('r1/HardReboot-2'), ctx)).toEqual({
      kind: 'Unavailable',
      message: 'power API answered HTTP 503',
      maybeSent: true,
      retryAfterMs: 30_000,
    });
    next = 409;
    expect(await provider.execute(req('r1/HardReboot-2', true), ctx)).toEqual({
      kind: 'Rejected',
      message: 'power API refused the reset: HTTP 409',
    });
    expect(posts).toEqual([
      'rack1-07 r1/HardReboot-1',
      'rack1-07 r1/HardReboot-1',
      'rack1-07 r1/HardReboot-2',
      'rack1-07 r1/HardReboot-2',
    ]);
  });
});
