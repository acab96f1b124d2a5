// Resident memory of `noderepair run` as a process: started against a private kube-apiserver
// holding BENCH_NODES (default 1,000) realistic Nodes, in dry-run, and measured from /proc
// (VmRSS steady after sync + BENCH_STEADY_SECONDS, VmHWM peak). Each CLI given on the command
// line is measured in turn against the same Nodes (e.g. an older build for a before/after):
//   node --import tsx bench/run-rss.ts [path/to/dist/cli/noderepair.js ...]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSource } from './source.js';

const NODES = Number(process.env['BENCH_NODES'] ?? 1000);
const STEADY_S = Number(process.env['BENCH_STEADY_SECONDS'] ?? 20);
const print = (o: object): void => void process.stdout.write(`${JSON.stringify(o)}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function procKiB(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
    readFileSync(`/proc/${pid}/status`, 'utf8'),
  );
  return m ? Number(m[1]) : NaN;
}

async function measure(cli: string, kubeconfig: string, dir: string, port: number): Promise<void> {
  const policy = join(dir, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      dryRun: true,
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '300s' }],
      drain: { enabled: false },
    }),
  );
  const args = [
    'run',
    '--policy',
    policy,
    '--kubeconfig',
    kubeconfig,
    '--metrics-bind-address',
    '0',
  ];
  args.push('--health-probe-bind-address', `127.0.0.1:${port}`);
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  const t0 = performance.now();
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${cli} exited ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (performance.now() - t0 > 300_000) throw new Error('not ready in 300 s');
      await sleep(200);
    }
    const syncMs = Math.round(performance.now() - t0);
    await sleep(STEADY_S * 1000);
    const pid = child.pid!;
    print({
      bench: 'run-rss',
      cli,
      nodes: NODES,
      readyMs: syncMs,
      steadyRssMiB: +(procKiB(pid, 'VmRSS') / 1024).toFixed(1),
      peakRssMiB: +(procKiB(pid, 'VmHWM') / 1024).toFixed(1),
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const clis = process.argv.slice(2);
if (clis.length === 0)
  clis.push(fileURLToPath(new URL('../dist/cli/noderepair.js', import.meta.url)));
const source = await openSource(NODES, print);
try {
  const dir = mkdtempSync(join(tmpdir(), 'run-rss-'));
  let port = 18_081;
  for (const cli of clis) await measure(cli, source.kubeconfigPath, dir, port++);
} finally {
  await source.stop();
}
