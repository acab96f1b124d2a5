import { describe, expect, it } from 'vitest';
import { planSuites, type WorkspacePackage } from './changed-suites.js';

// A small workspace shaped like ours: core <- openstack <- capo <- capi-e2e; core <- chaos.
const ws: WorkspacePackage[] = [
  { dir: 'core', name: '@x/core', deps: [], suites: [] },
  { dir: 'openstack', name: '@x/openstack', deps: ['@x/core'], suites: [] },
  { dir: 'capo', name: '@x/capo', deps: ['@x/openstack', '@x/core'], suites: [] },
  { dir: 'capi-e2e', name: '@x/capi-e2e', deps: ['@x/capo'], suites: ['capi-e2e-e2e'] },
  { dir: 'chaos', name: '@x/chaos', deps: ['@x/core'], suites: ['chaos-chaos'] },
  { dir: 'vm', name: '@x/vm', deps: [], suites: ['vm-vm'] },
];

describe('planSuites', () => {
  it('runs nothing for no change', () => {
    expect(planSuites([], ws).suites).toEqual([]);
  });

  it('a change in a leaf package runs the checks, the unit run and its own suite only', () => {
    const p = planSuites(['packages/vm/src/qemu.ts'], ws);
    expect(p.all).toBe(false);
    expect(p.suites).toEqual(['lint', 'typecheck', 'api', 'unit+integration', 'vm-vm']);
    expect(p.packages).toEqual(['@x/vm']);
  });

  it('a change in core reaches its dependents transitively', () => {
    const p = planSuites(['packages/core/src/health/ladder.ts'], ws);
    expect(p.suites).toEqual([
      'lint',
      'typecheck',
      'api',
      'unit+integration',
      'capi-e2e-e2e',
      'chaos-chaos',
    ]);
    expect(p.packages).toEqual(['@x/capi-e2e', '@x/capo', '@x/chaos', '@x/core', '@x/openstack']);
    expect(p.suites).not.toContain('vm-vm');
  });

  it('docs and examples run the unit run (docs and examples projects) and no package suite', () => {
    const p = planSuites(['docs/health.md', 'README.md', 'examples/standalone/policy.yaml'], ws);
    expect(p.suites).toEqual(['lint', 'typecheck', 'api', 'unit+integration']);
  });

  it('a root script, config, lockfile or docs/tools change runs every suite', () => {
    for (const f of [
      'scripts/test-all.mjs',
      'pnpm-lock.yaml',
      'vitest.shared.ts',
      'docs/tools/reference.ts',
    ]) {
      const p = planSuites(['packages/vm/src/qemu.ts', f], ws);
      expect(p.all, f).toBe(true);
      expect(p.suites, f).toEqual([
        'lint',
        'typecheck',
        'api',
        'unit+integration',
        'capi-e2e-e2e',
        'chaos-chaos',
        'vm-vm',
      ]);
    }
  });

  it('a folder under packages/ that is not a workspace package runs every suite', () => {
    expect(planSuites(['packages/new-thing/src/a.ts'], ws).all).toBe(true);
  });
});
