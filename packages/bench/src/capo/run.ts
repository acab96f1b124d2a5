// Every capo scale point of `pnpm bench`: the test bed started once (install is idempotent),
// one pool of real Nova servers created for the largest N and reused by every point (a
// reboot leaves them ACTIVE), then for each W and each N a fresh world (new control planes,
// new Cluster API manager, new controller), so no point inherits another's memory.
import {
  runScript,
  startOpenStackTestbed,
  type OpenStackTestbed,
} from '@noderepair/openstack-testbed';
import { forEachLimited } from '../cluster/node-writer.js';
import type { CapoResult } from './figures.js';
import { runCapoPoint } from './measure.js';
import { CapoScaleWorld } from './world.js';

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

export interface CapoRunOptions {
  sizes: readonly number[];
  clusters: readonly number[];
  timeoutSeconds: number;
  /** Called after each point (the JSON is checkpointed) and with each failure. */
  onResult: (r: CapoResult, versions: { clusterAPI: string; kubernetes: string }) => void;
  onError: (what: string, e: Error) => void;
}

async function serverPool(tb: OpenStackTestbed, count: number): Promise<string[]> {
  // One script, one token: a python process and a token per server took ~5 min for 200.
  return tb.createServers(Array.from({ length: count }, (_, i) => `bench-capo-${i}`));
}

export async function runCapo(o: CapoRunOptions): Promise<void> {
  log('capo: starting the OpenStack test bed (run under flock -o /tmp/noderepair-testbed.lock)');
  const tb = await startOpenStackTestbed();
  const max = Math.max(...o.sizes);
  const t0 = Date.now();
  const pool = await serverPool(tb, max);
  await forEachLimited(pool, 8, async (id) => {
    await tb.waitForServer(id, 'ACTIVE', 600_000);
  });
  log(`capo: ${max} Nova servers ACTIVE in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  try {
    await runPoints(o, tb, pool);
  } finally {
    // The pool goes with the run: left behind, it would make the next `testbed.sh start`
    // (another suite's, or CI's) spend minutes deleting it.
    log(`capo: deleting the ${max} Nova servers`);
    await runScript(['reset-project'], { progress: () => undefined }).catch((e: unknown) =>
      log(`capo: deleting the servers failed (the next testbed start deletes them): ${String(e)}`),
    );
  }
}

async function runPoints(
  o: CapoRunOptions,
  tb: OpenStackTestbed,
  pool: readonly string[],
): Promise<void> {
  for (const w of o.clusters) {
    for (const n of o.sizes) {
      const what = `capo ${n} remediations x ${w} workload clusters`;
      let world: CapoScaleWorld | undefined;
      try {
        const servers = pool.slice(0, n);
        // The previous point's reboots must be over: a server still rebooting answers 409.
        await forEachLimited(servers, 8, async (id) => {
          await tb.waitForServer(id, 'ACTIVE', 600_000);
        });
        log(`${what}: building the world`);
        world = await CapoScaleWorld.start({
          tb,
          servers,
          clusters: w,
          timeoutSeconds: o.timeoutSeconds,
        });
        log(`${what}: measuring`);
        const r = await runCapoPoint(world, tb, {
          timeoutSeconds: o.timeoutSeconds,
          tag: `${n}x${w}`,
        });
        o.onResult(r, world.capi.versions);
      } catch (e) {
        o.onError(what, e as Error);
      } finally {
        await world?.stop().catch((e: unknown) => log(`${what}: stopping the world: ${String(e)}`));
      }
    }
  }
}
