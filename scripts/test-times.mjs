#!/usr/bin/env node
// Where `npm test`'s time goes (issue 48: measure first). test-all.mjs records, per suite, the
// wall time and the CPU time of everything it ran (bash's `times` around the suite: the
// user+system time of the process tree it waited for), per test file the duration vitest
// reports, and the run's own wall time (suites run in lanes side by side); it writes
// reports/timings.json.
//
//   node scripts/test-times.mjs            # the table of the last run (reports/timings.json)
//   node scripts/test-times.mjs --readme   # also rewrites the README's test-times block
//
// "CPU share" is CPU / (wall x cores): a suite far below 1 mostly waits (sleeps, polls, VMs,
// servers starting), so it is a candidate to run beside another one.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Per test file: seconds vitest reports in a suite's JSON report, slowest first. */
export function fileSeconds(reportFile) {
  if (!existsSync(reportFile)) return [];
  const j = JSON.parse(readFileSync(reportFile, 'utf8'));
  return (j.testResults ?? [])
    .map((t) => ({
      file: relative(root, t.name),
      s: Math.max(0, ((t.endTime ?? 0) - (t.startTime ?? 0)) / 1000),
    }))
    .sort((a, b) => b.s - a.s);
}

const fmt = (n) => n.toFixed(0);

/** The timings as a markdown table (suites, then the slowest files). */
export function timingsTable(t, slowest = 10) {
  const cores = t.cores ?? availableParallelism();
  const rows = t.suites.map(
    (s) =>
      `| ${s.name} | ${fmt(s.wallS)} | ${fmt(s.cpuS)} | ${(s.cpuS / Math.max(1, s.wallS * cores)).toFixed(2)} |`,
  );
  const wall = t.suites.reduce((a, s) => a + s.wallS, 0);
  const cpu = t.suites.reduce((a, s) => a + s.cpuS, 0);
  const files = t.suites
    .flatMap((s) => s.files.map((f) => ({ ...f, suite: s.name })))
    .sort((a, b) => b.s - a.s)
    .slice(0, slowest)
    .map((f) => `| ${f.suite} | \`${f.file}\` | ${fmt(f.s)} |`);
  return [
    `| suite | wall s | CPU s | CPU share of ${cores} cores |`,
    '| --- | ---: | ---: | ---: |',
    ...rows,
    `| sum of suites | ${fmt(wall)} | ${fmt(cpu)} | ${(cpu / Math.max(1, wall * cores)).toFixed(2)} |`,
    // The run's own wall time: the suites after the checks run in lanes side by side.
    ...(t.wallS === undefined
      ? []
      : [`| **the run (${t.lanes ?? 1} lanes)** | ${fmt(t.wallS)} | ${fmt(cpu)} | ${(cpu / Math.max(1, t.wallS * cores)).toFixed(2)} |`]),
    '',
    `The ${slowest} slowest test files (vitest's duration; files of a suite may overlap):`,
    '',
    '| suite | file | s |',
    '| --- | --- | ---: |',
    ...files,
  ].join('\n');
}

const BEGIN = '<!-- test-times:begin (node scripts/test-times.mjs --readme) -->';
const END = '<!-- test-times:end -->';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = join(root, 'reports', 'timings.json');
  if (!existsSync(file)) {
    console.error(`${relative(root, file)} not found: run npm test (or pnpm test:all) first`);
    process.exit(1);
  }
  const t = JSON.parse(readFileSync(file, 'utf8'));
  const table = timingsTable(t);
  console.log(table);
  if (process.argv.includes('--readme')) {
    const readme = join(root, 'README.md');
    const text = readFileSync(readme, 'utf8');
    const a = text.indexOf(BEGIN);
    const b = text.indexOf(END);
    if (a < 0 || b < a) {
      console.error(`README.md has no test-times block (${BEGIN} ... ${END})`);
      process.exit(1);
    }
    const block = `${BEGIN}\n\nMeasured ${t.at} (${t.suites.length} suites, ${t.cores} cores):\n\n${table}\n\n`;
    writeFileSync(readme, text.slice(0, a) + block + text.slice(b));
  }
}
