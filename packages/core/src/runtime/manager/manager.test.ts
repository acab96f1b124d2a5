import { describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import { silentLogger } from '../logger.js';
import { Informer } from '../reflector/informer.js';
import { MemoryApi } from '../reflector/memory-api.test-support.js';
import { Manager } from './manager.js';

describe('Manager (no probes, no election)', () => {
  it('runs informers and controllers, records metrics on its own registry, and stops gracefully', async () => {
    const api = new MemoryApi();
    api.upsert('a');
    const registry = new Registry();
    const m = new Manager({ logger: silentLogger, probes: false, registry });
    const inf = new Informer(api, { name: 'things' });
    m.addInformer(inf);
    const seen: string[] = [];
    let failOnce = true;
    m.controller({
      name: 'things-ctl',
      reconcile: async (r) => {
        seen.push(r.name);
        if (failOnce) {
          failOnce = false;
          throw new Error('first try fails');
        }
      },
    }).for(inf);
    expect(m.isLeader()).toBe(true);
    const done = m.start();
    await vi.waitFor(() => expect(seen).toEqual(['a', 'a']));
    const text = await registry.metrics();
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="things-ctl",result="error"} 1',
    );
    expect(text).toContain(
      'controller_runtime_reconcile_total{controller="things-ctl",result="success"} 1',
    );
    expect(text).toContain('workqueue_retries_total{name="things-ctl"} 1');
    m.stop();
    await done;
    expect(() => m.addInformer(inf)).toThrow(/before start/);
  });
});
