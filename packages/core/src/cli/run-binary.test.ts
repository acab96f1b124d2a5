// The compiled CLI as a user runs it (packages/core/dist, built by `pnpm run build` or the
// typecheck's `tsc -b`): no test runner's resolver in between, so what a missing provider
// package looks like is what Node itself reports.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dryRunProviderRefusal } from './run-provider.js';

const cli = fileURLToPath(new URL('../../dist/cli/noderepair.js', import.meta.url));
// A directory with no node_modules: nothing the user installed can be found from it.
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'run-binary-test-')));
const policy = join(cwd, 'policy.yaml');
writeFileSync(policy, 'stormGuard: { maxInFlight: 1 }\n');

const runCli = (...args: string[]) =>
  spawnSync(process.execPath, [cli, 'run', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });

describe('node packages/core/dist/cli/noderepair.js run', () => {
  it('--provider dry-run without --dry-run exits non-zero and says what to use', () => {
    const r = runCli('--provider', 'dry-run', '--policy', policy);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(`noderepair run: ${dryRunProviderRefusal}`);
  });

  it('--provider openstack is found next to noderepair, as README runs it from a checkout', () => {
    // The workspace root depends on @noderepair/openstack, as an install of both packages
    // does: the CLI finds it from its own location, whatever the working directory.
    const r = runCli('--help', '--provider', 'openstack');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('options of provider "openstack"');
    expect(r.stdout).toMatch(/^ {2}clouds-yaml {2,}path of clouds.yaml/m);
  });

  it('a provider package that is not installed is named, with what to install', () => {
    const r = runCli(
      '--provider-module',
      '@example/not-installed',
      '--dry-run',
      '--policy',
      policy,
    );
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      `noderepair run: --provider-module: cannot find the package @example/not-installed (looked next to noderepair and from ${cwd}): install it, e.g. npm i @example/not-installed`,
    );
  });
});
