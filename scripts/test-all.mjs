#!/usr/bin/env node
// Runs every test suite, each with vitest's JSON reporter into reports/, then sums the
// reports and prints `N passed, N failed` as the last line (CI reads it). Exits non-zero when
// any test failed, any suite crashed, or no test ran at all.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileSeconds, timingsTable } from './test-times.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const reports = join(root, 'reports');
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

/** Each suite: a name and the pnpm arguments of a vitest run (reporters are appended). */
const suites = [
  { name: 'lint', kind: 'check', args: ['run', 'lint'] },
  // tsc -b tsconfig.json: the private packages, their tests and docs/tools (incremental).
  { name: 'typecheck', kind: 'check', args: ['run', 'typecheck'] },
  // The checked-in API reports (api/) match the .d.ts typecheck has just built; names the stale.
  { name: 'api', kind: 'check', args: ['run', 'api:check'] },
  // NODEREPAIR_VITEST_CHANGED=<git ref> (set by `pnpm test:changed`): only the test files
  // that import a file changed since that ref.
  {
    name: 'unit+integration',
    args: [
      'exec',
      'vitest',
      'run',
      ...(process.env.NODEREPAIR_VITEST_CHANGED ? ['--changed', process.env.NODEREPAIR_VITEST_CHANGED, '--passWithNoTests'] : []),
    ],
  },
];
// Suites that need more than a kube-apiserver (a VM, the Cluster API manager, OpenStack)
// are package scripts named test:vm, test:e2e or test:chaos; each is a vitest run.
for (const pkg of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', pkg, 'package.json');
  if (!existsSync(file)) continue;
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  for (const script of Object.keys(manifest.scripts ?? {}).filter((k) => /^test:(vm|e2e|chaos)$/.test(k))) {
    suites.push({ name: `${pkg}-${script.slice(5)}`, args: ['--filter', manifest.name, 'run', script] });
  }
}

// NODEREPAIR_SUITES=a,b,c runs only those suites, in that order (a developer's quick re-run of
// what a change touches); CI sets nothing and runs them all.
const only = process.env.NODEREPAIR_SUITES?.split(',').map((n) => n.trim()).filter(Boolean);
if (only) {
  const unknown = only.filter((n) => !suites.some((s) => s.name === n));
  if (unknown.length) {
    console.error(`NODEREPAIR_SUITES: unknown suite(s) ${unknown.join(', ')}; known: ${suites.map((s) => s.name).join(', ')}`);
    process.exit(2);
  }
}
const chosen = only ? only.map((n) => suites.find((s) => s.name === n)) : suites;

// Two lanes run side by side after the checks: the suites mostly wait (for apiservers, VMs,
// Nova; a CPU share of ~0.2 of the 2 cores each, reports/timings.json), so one after another
// left the machine idle for most of an hour. A lane runs its suites in order. Suites that share
// a machine-wide resource stay in ONE lane: the OpenStack test bed (fixed ports and system
// services; the demo's real-cloud test also checks the refusal while it is NOT running) and
// the VMs (one image cache, KVM). The lanes are balanced on the measured wall times (the
// two-lane rehearsal of 8ef7986 on a loaded machine: lane A ~1,990 s with pack-test and ship
// moved into it, lane B ~2,000 s).
// NODEREPAIR_LANES=1 runs everything in one lane, in the order of `suites`.
const LANE_B = new Set(['vm-node-vm', 'demo-e2e', 'openstack-testbed-e2e', 'overlayfs-gen-vm', 'vm-vm']);
const oneLane = process.env.NODEREPAIR_LANES === '1';
const checks = chosen.filter((s) => s.kind === 'check');
const rest = chosen.filter((s) => s.kind !== 'check');
const laneOf = (s) => (oneLane || !LANE_B.has(s.name) ? 0 : 1);
const laneB = [...LANE_B].map((n) => rest.find((s) => s.name === n)).filter(Boolean);
const lanes = [rest.filter((s) => laneOf(s) === 0), oneLane ? [] : laneB].filter((l) => l.length > 0);

const results = [];
const runStart = Date.now();
// The checks first, one after another: a broken build makes every suite fail anyway.
for (const s of checks) results.push(await runSuite(s));
const laneResults = await Promise.all(
  lanes.map(async (lane) => {
    const out = [];
    for (const s of lane) out.push(await runSuite(s));
    return out;
  }),
);
// Report in the order of `chosen`, whatever order they finished in.
for (const s of rest) results.push(laneResults.flat().find((r) => r.name === s.name));
const runWallS = (Date.now() - runStart) / 1000;

/**
 * One suite: its output goes to reports/<name>.log and is printed in one block when the suite
 * ends (two lanes would otherwise interleave their lines). CPU time is the suite's own, from
 * bash's `times` (children waited for), so that two lanes do not count each other's.
 */
async function runSuite(s) {
  const file = join(reports, `${s.name}.json`);
  const log = join(reports, `${s.name}.log`);
  const timesFile = join(reports, `${s.name}.times`);
  const args = s.kind === 'check' ? s.args : [...s.args, '--reporter=default', '--reporter=json', `--outputFile.json=${file}`];
  const t0 = Date.now();
  console.log(`==> ${s.name} started at ${new Date(t0).toISOString().slice(11, 19)}`);
  const status = await new Promise((resolve) => {
    const fd = openSync(log, 'w');
    const child = spawn(
      'bash',
      ['-c', 'pnpm "$@"; rc=$?; times >"$NODEREPAIR_TIMES_FILE"; exit $rc', 'bash', ...args],
      { stdio: ['ignore', fd, fd], cwd: root, env: { ...process.env, NODEREPAIR_TIMES_FILE: timesFile } },
    );
    child.on('close', (code, signal) => {
      closeSync(fd);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
  const wallS = (Date.now() - t0) / 1000;
  console.log(`\n==> ${s.name} (exit ${status}, ${Math.round(wallS)} s)`);
  process.stdout.write(readFileSync(log, 'utf8'));
  let passed = 0;
  let failed = 0;
  if (s.kind !== 'check' && existsSync(file)) {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    passed = j.numPassedTests ?? 0;
    failed = (j.numFailedTests ?? 0) + (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  }
  return {
    name: s.name,
    status,
    passed,
    failed,
    failures: failuresOf(file, s.kind, log),
    wallS,
    cpuS: childrenCpuFromTimes(timesFile),
    files: s.kind === 'check' ? [] : fileSeconds(file),
  };
}

/** Children's user + system seconds from bash's `times` output (its second line). */
function childrenCpuFromTimes(file) {
  if (!existsSync(file)) return 0;
  const line = readFileSync(file, 'utf8').trim().split('\n')[1] ?? '';
  return line
    .split(/\s+/)
    .map((t) => /^(\d+)m([\d.]+)s$/.exec(t))
    .filter(Boolean)
    .reduce((a, m) => a + Number(m[1]) * 60 + Number(m[2]), 0);
}

/** The failed tests of a suite's JSON report: file, name, the first lines of the first error. */
function failuresOf(file, kind, log) {
  if (kind === 'check' || !existsSync(file)) return [];
  const j = JSON.parse(readFileSync(file, 'utf8'));
  const out = [];
  for (const f of j.testResults ?? []) {
    const failedTests = (f.assertionResults ?? []).filter((t) => t.status === 'failed');
    // A file that failed without a failed test (a hook or an import threw) has its message here;
    // vitest's JSON leaves it empty when a describe's beforeAll threw (its tests are "skipped"),
    // so the error is taken from the suite's log, where the default reporter printed it.
    if (failedTests.length === 0 && f.status === 'failed')
      out.push({ file: f.name, test: '(file)', message: f.message || suiteErrorFromLog(log, f.name) });
    for (const t of failedTests)
      out.push({ file: f.name, test: t.fullName ?? t.title, message: (t.failureMessages ?? []).join('\n') });
  }
  return out;
}

/** The error the default reporter printed under "FAIL  <file> > <describe>" (a hook's throw). */
function suiteErrorFromLog(log, file) {
  if (!existsSync(log)) return '';
  // eslint-disable-next-line no-control-regex -- ANSI colour codes in the log
  const lines = readFileSync(log, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const base = file.split('/').pop();
  const at = lines.findIndex((l) => /^\s*FAIL\s/.test(l) && l.includes(base));
  if (at < 0) return `(no message in the JSON report; see ${relative(root, log)})`;
  const end = lines.findIndex((l, i) => i > at && /^⎯{3,}/.test(l));
  return lines.slice(at, end < 0 ? at + 12 : Math.min(end, at + 12)).join('\n');
}

// CI keeps the end of this output: name every failure there, with the first lines of its error,
// so a red run can be understood from the tail alone.
const allFailures = results.flatMap((r) => r.failures.map((f) => ({ suite: r.name, ...f })));
if (allFailures.length) {
  console.log('\n==> failures');
  for (const f of allFailures.slice(0, 30)) {
    console.log(`- [${f.suite}] ${relative(root, f.file)} > ${f.test}`);
    const lines = f.message.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
    for (const l of lines.slice(0, 6)) console.log(`    ${l.slice(0, 300)}`);
  }
  if (allFailures.length > 30) console.log(`... and ${allFailures.length - 30} more`);
}

// Where the time went (scripts/test-times.mjs prints it again, and puts it in the README).
const timings = {
  at: new Date().toISOString(),
  cores: availableParallelism(),
  lanes: Math.max(1, lanes.length),
  wallS: runWallS,
  suites: results.map(({ name, wallS, cpuS, files }) => ({ name, wallS, cpuS, files })),
};
writeFileSync(join(reports, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
console.log('\n==> timings');
console.log(timingsTable(timings));

console.log('\n==> summary');
for (const r of results) console.log(`${r.name.padEnd(20)} exit=${r.status} passed=${r.passed} failed=${r.failed}`);
const passed = results.reduce((a, r) => a + r.passed, 0);
const failed = results.reduce((a, r) => a + r.failed, 0);
const crashed = results.filter((r) => r.status !== 0);
if (crashed.length) console.log(`suites that exited non-zero: ${crashed.map((r) => r.name).join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(crashed.length || failed || passed === 0 ? 1 : 0);
