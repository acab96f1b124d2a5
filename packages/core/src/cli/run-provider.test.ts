// `noderepair run`'s provider choice, end to end through runCommand: every refusal with its
// exact message and exit code, modules loaded from real files and packages on disk.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { defaultRepairPolicy } from '../health/policy.js';
import type { ProviderModule } from '../provider/module.js';
import { ProviderActions, type MachineProvider, type ProviderAction } from '../provider/port.js';
import { dryRunProviderRefusal, ladderFor } from './run-provider.js';
import { runCommand, type RunIo } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'run-provider-test-'));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1' } }],
    users: [{ name: 'u', user: { token: 'x' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  }),
);

// FAKE provider that can only soft-reboot (and cannot tell power state).
const softOnly = (): MachineProvider => ({
  name: 'soft-only-fake',
  actions: new Set<ProviderAction>(ProviderActions.filter((a) => a === 'SoftReboot')),
  execute: async () => ({ kind: 'Rejected', message: 'fake' }),
  fence: async () => ({ kind: 'NotFenced', reason: 'fake' }),
});
const softOnlyModule: ProviderModule = {
  name: 'soft-only-fake',
  options: { cloud: 'the cloud', region: 'the region' },
  create: softOnly,
};
const brokenModule: ProviderModule = {
  name: 'broken-fake',
  options: { cloud: 'the cloud' },
  create: (ctx) => {
    throw new Error(`clouds.yaml: no cloud "${ctx.options['cloud']}"\nsecond line never shown`);
  },
};

async function run(
  args: string[],
  policy: string,
  extra: Partial<RunIo> = {},
): Promise<{ code: number; err: string; out: string }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await runCommand(['--policy', 'p', '--kubeconfig', kubeconfig, ...args], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: async () => policy,
    providers: { 'soft-only': softOnlyModule, broken: brokenModule },
    cwd: dir,
    ...extra,
  });
  return { code, err: err.join('\n'), out: out.join('\n') };
}

describe('the dry-run provider outside a dry run', () => {
  it('is refused with exit 2, naming --dry-run and the real providers', async () => {
    const expected = {
      code: 2,
      err: `noderepair run: ${dryRunProviderRefusal}`,
    };
    expect(await run([], '{}')).toEqual({ ...expected, out: '' });
    expect(await run(['--provider', 'dry-run'], '{}')).toEqual({ ...expected, out: '' });
    expect(dryRunProviderRefusal).toMatch(/--dry-run/);
    expect(dryRunProviderRefusal).toMatch(/--provider openstack/);
    expect(dryRunProviderRefusal).toMatch(/--provider-module/);
  });

  it('passes the check with dryRun: true in the policy (and stops later, at the unreachable kubeconfig check)', async () => {
    const r = await run(['--kubeconfig', '/nonexistent/kubeconfig'], 'dryRun: true');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^noderepair run: cannot load the kubeconfig \/nonexistent\/kubeconfig: /,
    );
  });

  it('stands in for a ladder of site steps only, which never asks it to act', async () => {
    const r = await run(
      ['--kubeconfig', '/nonexistent/kubeconfig'],
      'ladder: [{ action: Command, command: [/usr/local/bin/replace-node] }]',
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^noderepair run: cannot load the kubeconfig \/nonexistent\/kubeconfig: /,
    );
    // One step it would have to act on is enough to refuse it.
    expect(
      await run([], 'ladder: [{ action: SoftReboot }, { action: Command, command: [/bin/x] }]'),
    ).toMatchObject({ code: 2, err: `noderepair run: ${dryRunProviderRefusal}` });
  });
});

describe('provider options', () => {
  it('refuses an option the provider does not list, naming it and the accepted ones', async () => {
    expect(await run(['--provider', 'soft-only', '--provider-opt', 'clod=x'], '{}')).toMatchObject({
      code: 2,
      err: 'noderepair run: --provider-opt: provider "soft-only-fake" has no option "clod" (did you mean "cloud"?); its options: cloud, region',
    });
    expect(await run(['--dry-run', '--cloud', 'prod'], '{}')).toMatchObject({
      code: 2,
      err: 'noderepair run: --cloud: provider "dry-run" has no option "cloud"; its options: none',
    });
  });

  it('a create() that throws exits 1 with the provider name and the first line of its message', async () => {
    expect(await run(['--provider', 'broken', '--cloud', 'nope'], '{}')).toMatchObject({
      code: 1,
      err: 'noderepair run: provider broken-fake: clouds.yaml: no cloud "nope"',
    });
  });
});

describe('the ladder against what the provider can do', () => {
  it('refuses a written ladder with a step the provider cannot execute', async () => {
    expect(
      await run(
        ['--provider', 'soft-only'],
        'ladder: [{ action: SoftReboot }, { action: HardReboot }]',
      ),
    ).toMatchObject({
      code: 1,
      err: 'noderepair run: the policy\'s ladder uses HardReboot, which provider "soft-only-fake" cannot execute (it can: SoftReboot)',
    });
  });

  it("refuses a condition rule's ladder the provider cannot execute, naming the rule", async () => {
    expect(
      await run(
        ['--provider', 'soft-only'],
        'ladder: [{ action: SoftReboot }]\nunhealthyConditions: [{ type: KernelDeadlock, status: "True", ladder: [{ action: HardReboot }] }]',
      ),
    ).toMatchObject({
      code: 1,
      err: 'noderepair run: unhealthyConditions[0].ladder uses HardReboot, which provider "soft-only-fake" cannot execute (it can: SoftReboot)',
    });
  });

  it('refuses FailAfter with a provider that cannot tell the power state', async () => {
    expect(
      await run(
        ['--provider', 'soft-only'],
        'ladder: [{ action: SoftReboot }]\nshutdown: { poweredOff: FailAfter, failAfter: 2h }',
      ),
    ).toMatchObject({
      code: 1,
      err: 'noderepair run: the policy\'s shutdown.poweredOff is FailAfter, which needs the machine\'s power state, and provider "soft-only-fake" cannot tell it',
    });
  });

  it('cuts the default ladder to what the provider can do; a written one is kept or refused as written', () => {
    const p = defaultRepairPolicy;
    expect(p.ladder.map((s) => s.action)).toEqual(['SoftReboot', 'HardReboot']);
    expect(ladderFor(p, false, softOnly())).toEqual(either.right([p.ladder[0]]));
    const all = { name: 'all', actions: new Set(ProviderActions) };
    expect(ladderFor(p, false, all)).toEqual(either.right(p.ladder));
    const powerOffOnly = { name: 'off-fake', actions: new Set<ProviderAction>(['PowerOff']) };
    expect(ladderFor(p, false, powerOffOnly)).toEqual(
      either.left(
        'provider "off-fake" can execute none of the default ladder\'s steps (SoftReboot, HardReboot; it can: PowerOff): write a ladder in the policy',
      ),
    );
    const withReplace = {
      ...p,
      ladder: [...p.ladder, { action: 'Replace' as const, timeoutMs: 1, attempts: 1 }],
    };
    expect(ladderFor(withReplace, true, all)).toEqual(either.right(withReplace.ladder));
    expect(ladderFor(withReplace, true, softOnly())).toEqual(
      either.left(
        'the policy\'s ladder uses HardReboot, Replace, which provider "soft-only-fake" cannot execute (it can: SoftReboot)',
      ),
    );
  });
});

/** A real provider module file on disk whose create() reports what it was given by throwing. */
function writeModule(path: string, name: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    `export const providerModule = {
  name: ${JSON.stringify(name)},
  options: { cloud: 'the clouds.yaml entry', region: 'the region' },
  create(ctx) {
    throw new Error('got ' + JSON.stringify(ctx.options) + ' for ' + ctx.cluster.server);
  },
};
`,
  );
}

describe('--provider-module', () => {
  writeModule(join(dir, 'fixtures', 'fixture-provider.mjs'), 'fixture');
  writeFileSync(join(dir, 'not-a-provider.mjs'), 'export const x = 1;\n');
  // An ESM-only package installed in the user's project (only the "import" condition).
  const pkg = join(dir, 'node_modules', '@acme', 'nr-provider');
  writeModule(join(pkg, 'dist', 'provider.mjs'), 'acme');
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: '@acme/nr-provider',
      type: 'module',
      exports: {
        '.': { import: './dist/index.mjs' },
        './provider': { import: './dist/provider.mjs' },
      },
    }),
  );

  it('loads a module file relative to the working directory and passes create() the options', async () => {
    expect(
      await run(
        [
          '--provider-module',
          './fixtures/fixture-provider.mjs',
          '--cloud',
          'prod',
          '--provider-opt',
          'region=R2',
        ],
        '{}',
      ),
    ).toMatchObject({
      code: 1,
      err: 'noderepair run: provider fixture: got {"cloud":"prod","region":"R2"} for https://127.0.0.1:1',
    });
  });

  it('checks the options against the loaded module', async () => {
    expect(
      await run(
        ['--provider-module', './fixtures/fixture-provider.mjs', '--provider-opt', 'zone=a'],
        '{}',
      ),
    ).toMatchObject({
      code: 2,
      err: 'noderepair run: --provider-opt: provider "fixture" has no option "zone"; its options: cloud, region',
    });
  });

  it('loads a package installed in the working directory, through its exports map', async () => {
    expect(await run(['--provider-module', '@acme/nr-provider/provider'], '{}')).toMatchObject({
      code: 1,
      err: 'noderepair run: provider acme: got {} for https://127.0.0.1:1',
    });
  });

  it('says what is wrong with a module it cannot use', async () => {
    expect(await run(['--provider-module', './nope.mjs'], '{}')).toMatchObject({
      code: 1,
      err: `noderepair run: --provider-module: cannot find the provider module file ${join(dir, 'nope.mjs')}`,
    });
    expect(await run(['--provider-module', './not-a-provider.mjs'], '{}')).toMatchObject({
      code: 1,
      err: 'noderepair run: --provider-module: ./not-a-provider.mjs does not export a provider module: expected `export const providerModule = { name, options, create }` (or a default export of that shape)',
    });
    expect(await run(['--provider-module', '@acme/nr-provider/vsphere'], '{}')).toMatchObject({
      code: 1,
      err: `noderepair run: --provider-module: @acme/nr-provider is installed (${pkg}) but does not export "./vsphere": install a version that does (npm i @acme/nr-provider@latest)`,
    });
    expect(await run(['--provider-module', '@acme-fake/absent-provider'], '{}')).toMatchObject({
      code: 1,
      err: `noderepair run: --provider-module: cannot find the package @acme-fake/absent-provider (looked next to noderepair and from ${dir}): install it, e.g. npm i @acme-fake/absent-provider`,
    });
  });
});

describe('run --help', () => {
  it('lists the providers, and the options of the one chosen', async () => {
    const plain = await run(['--help'], '{}');
    expect(plain.code).toBe(0);
    expect(plain.out).toMatch(
      /^ {2}dry-run +built in; records, repairs nothing; only with --dry-run$/m,
    );
    expect(plain.out).toMatch(
      /^ {2}openstack +from @noderepair\/openstack\/provider \(npm i @noderepair\/openstack\)$/m,
    );
    expect(plain.out).toMatch(/options of provider "dry-run" .*:\n {2}\(none\)/);
    const chosen = await run(
      ['--help', '--provider-module', './fixtures/fixture-provider.mjs'],
      '{}',
    );
    expect(chosen.out).toMatch(
      /options of provider "fixture" .*:\n {2}cloud +the clouds.yaml entry\n {2}region +the region/,
    );
    // The --flag=value form too.
    const eq = await run(['--help', '--provider-module=./fixtures/fixture-provider.mjs'], '{}');
    expect(eq.out).toMatch(/options of provider "fixture"/);
  });
});
