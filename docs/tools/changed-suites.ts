// Which test suites a change needs (issue 48's fast local loop, `pnpm test:changed`): pure, so
// the rules below are tested without git. scripts/test-changed.ts feeds it the changed files
// and the workspace's manifests, then runs scripts/test-all.mjs with the chosen suites.
//
// The rules, from the package graph:
// - A file under packages/<dir>/ changes that package; every package that depends on it
//   (dependencies or devDependencies, transitively) is affected too, and each affected
//   package's own suites (test:vm, test:e2e, test:chaos) run.
// - docs/, examples/ and Markdown at the root are checked by the unit+integration run (the
//   docs and examples projects), which runs whenever anything changed: vitest's `--changed`
//   narrows it to the test files that import a changed file.
// - Anything else (scripts/, root configs, the lockfile, .ci/) can change every suite: all run.
// - The checks (lint, typecheck, api) always run: they take well under a minute.

export interface WorkspacePackage {
  /** The folder under packages/. */
  readonly dir: string;
  readonly name: string;
  /** Names of the workspace packages it depends on (dependencies and devDependencies). */
  readonly deps: readonly string[];
  /** Its suites as test-all.mjs names them: `<dir>-<vm|e2e|chaos>`. */
  readonly suites: readonly string[];
}

export interface SuitePlan {
  /** Every suite runs (a change outside the packages and the docs). */
  readonly all: boolean;
  /** Why, for the user: the files or packages that decided it. */
  readonly reasons: readonly string[];
  /** The suites to run, in test-all's order (checks, unit+integration, package suites). */
  readonly suites: readonly string[];
  /** The affected packages (changed or depending on a changed one), sorted. */
  readonly packages: readonly string[];
}

const CHECKS = ['lint', 'typecheck', 'api'];
const UNIT = 'unit+integration';

/** Files whose change cannot be traced to a package: every suite may depend on them. */
function isGlobal(file: string): boolean {
  if (file.startsWith('packages/')) return false;
  if (file.startsWith('docs/') && !file.startsWith('docs/tools/')) return false;
  if (file.startsWith('examples/')) return false;
  if (!file.includes('/') && file.endsWith('.md')) return false;
  return true;
}

export function planSuites(
  changed: readonly string[],
  packages: readonly WorkspacePackage[],
): SuitePlan {
  const everySuite = [...CHECKS, UNIT, ...packages.flatMap((p) => p.suites)];
  if (changed.length === 0)
    return { all: false, reasons: ['no changed files'], suites: [], packages: [] };
  const global = changed.filter(isGlobal);
  if (global.length > 0)
    return {
      all: true,
      reasons: global.slice(0, 5).map((f) => `${f} is outside the packages: every suite`),
      suites: everySuite,
      packages: packages.map((p) => p.name).sort(),
    };
  const byDir = new Map(packages.map((p) => [p.dir, p]));
  const direct = new Set<string>();
  const reasons: string[] = [];
  for (const f of changed) {
    const dir = /^packages\/([^/]+)\//.exec(f)?.[1];
    if (dir === undefined) continue;
    const p = byDir.get(dir);
    if (p === undefined) {
      // A folder under packages/ without a manifest (a new package being born): be safe.
      return {
        all: true,
        reasons: [`${f}: packages/${dir} is not a workspace package: every suite`],
        suites: everySuite,
        packages: packages.map((x) => x.name).sort(),
      };
    }
    if (!direct.has(p.name)) reasons.push(`${p.name} changed (${f})`);
    direct.add(p.name);
  }
  // Dependents, transitively: a change to core reaches every package that imports it.
  const affected = new Set(direct);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of packages)
      if (!affected.has(p.name) && p.deps.some((d) => affected.has(d))) {
        affected.add(p.name);
        reasons.push(`${p.name} depends on ${p.deps.filter((d) => affected.has(d)).join(', ')}`);
        grew = true;
      }
  }
  const suites = [
    ...CHECKS,
    UNIT,
    ...packages.filter((p) => affected.has(p.name)).flatMap((p) => p.suites),
  ];
  if (direct.size === 0) reasons.push('docs, examples or the README changed');
  return { all: false, reasons, suites, packages: [...affected].sort() };
}
