// The fast local loop (`pnpm test:changed [BASE]`): only the suites a change touches, chosen
// by docs/tools/changed-suites.ts from the changed files and the package graph, then run by
// scripts/test-all.mjs (same reports, same last line). The unit+integration run gets vitest's
// `--changed BASE`: only the test files that import a changed file.
//
// BASE defaults to the branch's upstream (or HEAD): committed changes since it, uncommitted
// ones and untracked files all count. `--dry-run` prints the plan without running it.
// Run the whole of `npm test` once before you stop: this loop is for the edits before that.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planSuites, type WorkspacePackage } from '../docs/tools/changed-suites.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const git = (...a: string[]) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim();

function defaultBase(): string {
  try {
    return git('rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}');
  } catch {
    return 'HEAD';
  }
}
const base = args.find((a) => !a.startsWith('--')) ?? defaultBase();

const lines = (s: string) => s.split('\n').filter(Boolean);
const changed = [
  ...new Set([
    ...lines(git('diff', '--name-only', base)),
    ...lines(git('ls-files', '--others', '--exclude-standard')),
  ]),
].sort();

interface Manifest {
  name: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const packages: WorkspacePackage[] = [];
for (const dir of readdirSync(join(root, 'packages')).sort()) {
  const file = join(root, 'packages', dir, 'package.json');
  if (!existsSync(file)) continue;
  const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const deps = Object.entries({ ...m.dependencies, ...m.devDependencies })
    .filter(([, v]) => v.startsWith('workspace:'))
    .map(([k]) => k);
  const suites = Object.keys(m.scripts ?? {})
    .filter((k) => /^test:(vm|e2e|chaos)$/.test(k))
    .map((k) => `${dir}-${k.slice(5)}`);
  packages.push({ dir, name: m.name, deps, suites });
}

const plan = planSuites(changed, packages);
console.log(`changed since ${base}: ${changed.length} file(s)`);
for (const r of plan.reasons) console.log(`  ${r}`);
console.log(`suites: ${plan.suites.join(', ') || '(none)'}`);
if (dryRun || plan.suites.length === 0) process.exit(0);
const r = spawnSync('node', [join(root, 'scripts/test-all.mjs')], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    NODEREPAIR_SUITES: plan.suites.join(','),
    ...(plan.all ? {} : { NODEREPAIR_VITEST_CHANGED: base }),
  },
});
process.exit(r.status ?? 1);
