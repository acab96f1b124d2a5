// `pnpm bench`: every figure of issue 10 in one run, printed as markdown with ratios and
// written as JSON. Order: micro benchmarks (no cluster), then the scale world grown through
// each size (both controllers restarted and measured at each), then the informers on the
// largest set of Nodes, then the recorded VM figures. A failing part is reported and the
// rest still runs; the exit code is 1 if anything failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, type BenchOptions } from './args.js';
import { runCapo } from './capo/run.js';
import { CapiWorld } from './cluster/capi-world.js';
import { machineInfo } from './machine.js';
import { runScale } from './measure/scale-run.js';
import { runCoreBench } from './micro/core-bench.js';
import { readOverlayFigures } from './micro/overlay-figures.js';
import type { BenchReport } from './report/model.js';
import { renderReport } from './report/tables.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/** Writes the JSON and the markdown so far: a run cut short still leaves its figures. */
function checkpoint(o: BenchOptions, report: BenchReport): string {
  const out = resolve(repoRoot, o.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(out.replace(/\.json$/, '') + '.md', renderReport(report));
  return out;
}

async function run(o: BenchOptions): Promise<BenchReport> {
  const started = new Date();
  const load0 = loadavg()[0] ?? 0;
  const report: BenchReport = {
    startedAt: started.toISOString(),
    finishedAt: '',
    durationSeconds: 0,
    mode: o.mode,
    machine: machineInfo(load0),
    versions: {},
    scale: [],
    informers: [],
    micro: [],
    overlay: undefined,
    capo: [],
    errors: [],
  };
  const attempt = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      const msg = `${what}: ${(e as Error).message}`;
      log(`FAILED ${msg}`);
      report.errors.push(msg);
    }
    report.overlay = readOverlayFigures();
    report.durationSeconds = Math.round((Date.now() - started.getTime()) / 1000);
    checkpoint(o, report);
  };

  if (o.micro) {
    log('micro benchmarks (work queue, health state machine)');
    await attempt('micro', async () => {
      report.micro = await runCoreBench({ BENCH_ONLY: 'micro' }, 300_000);
    });
  }

  if (o.scale || o.informers) {
    let world: CapiWorld | undefined;
    await attempt('scale world', async () => {
      log('starting envtest (no kube-controller-manager) and the Cluster API manager');
      world = await CapiWorld.start({ timeoutSeconds: o.timeoutSeconds });
      report.versions = world.versions;
    });
    try {
      for (const [k, size] of o.sizes.entries()) {
        if (!world) break;
        const elapsedMin = (Date.now() - started.getTime()) / 60_000;
        if (k > 0 && elapsedMin > o.maxMinutes) {
          const msg = `scale ${size}: skipped, ${elapsedMin.toFixed(1)} min elapsed (--max-minutes ${o.maxMinutes})`;
          log(msg);
          report.errors.push(msg);
          continue;
        }
        const w = world;
        await attempt(`scale ${size}`, async () => {
          log(`growing to ${size} workers`);
          await w.startManager({ provisioning: true });
          await w.growTo(size);
          await w.waitForNodeRefs(1_200_000);
          if (!o.scale) return;
          log(`measuring at ${size} workers`);
          report.scale.push(
            await runScale(w, {
              nodes: size,
              timeoutSeconds: o.timeoutSeconds,
              steadyWindowMs: o.steadySeconds * 1000,
              heartbeatPeriodMs: o.heartbeatSeconds * 1000,
              seed: 7 + k * 37,
              capiSyncLimitMs: o.capiSyncLimitSeconds * 1000,
            }),
          );
        });
      }
      if (world && o.informers) {
        const w = world;
        await attempt('informers', async () => {
          // The controllers are stopped so they neither compete for CPU nor write to the Nodes.
          await w.stopManager();
          const nodes = w.count + 1; // + the control-plane Node
          log(`informer memory on the same ${nodes} Nodes`);
          report.informers = await runCoreBench(
            {
              BENCH_ONLY: 'informers',
              BENCH_KUBECONFIG: w.cp.kubeconfigPath,
              BENCH_NODES: String(nodes),
            },
            900_000,
          );
        });
      }
    } finally {
      await world?.stop();
    }
  }

  if (o.capo) {
    await attempt('capo', async () => {
      await runCapo({
        sizes: o.capoSizes,
        clusters: o.capoClusters,
        timeoutSeconds: o.timeoutSeconds,
        onResult: (r, versions) => {
          report.capo.push(r);
          if (report.versions.kubernetes === undefined) report.versions = versions;
          checkpoint(o, report);
        },
        onError: (what, e) => {
          const msg = `${what}: ${e.message}`;
          log(`FAILED ${msg}`);
          report.errors.push(msg);
          checkpoint(o, report);
        },
      });
    });
  }

  report.overlay = readOverlayFigures();
  const finished = new Date();
  report.finishedAt = finished.toISOString();
  report.durationSeconds = Math.round((finished.getTime() - started.getTime()) / 1000);
  report.machine = machineInfo(load0);
  return report;
}

async function main(): Promise<number> {
  let o: BenchOptions;
  try {
    o = parseBenchArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`pnpm bench: ${(e as Error).message}\n`);
    return 2;
  }
  const report = await run(o);
  process.stdout.write(renderReport(report));
  const out = checkpoint(o, report);
  log(`results written to ${out} (and .md)`);
  return report.errors.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`pnpm bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
