// The naming that lets API Documenter render subpath entry points (docs/tools/api-docs.ts):
// each gets a distinct, file-name-safe package name, and the rendered text gets the real
// specifier back while links keep pointing at the files API Documenter wrote.
import { describe, expect, it } from 'vitest';
import { modelNameOf, restoreSpecifiers, specifierOf, stalePages } from './api-docs.js';

const core = { packageName: '@noderepair/core', subpath: '.' };
const kfc = { packageName: '@noderepair/core', subpath: './kfc' };
const vitest = { packageName: '@noderepair/envtest', subpath: './vitest' };
const setup = { packageName: '@noderepair/envtest', subpath: './vitest/global-setup' };

describe('api docs naming', () => {
  it('keeps the package name for "." and joins a subpath on with __', () => {
    expect(modelNameOf(core)).toBe('@noderepair/core');
    expect(modelNameOf(kfc)).toBe('@noderepair/core__kfc');
    expect(modelNameOf(setup)).toBe('@noderepair/envtest__vitest__global-setup');
    expect(specifierOf(setup)).toBe('@noderepair/envtest/vitest/global-setup');
  });

  it('restores specifiers in text, longest alias first, and leaves link targets alone', () => {
    // As API Documenter writes them: `_` escaped in text, file names unescaped.
    const page = [
      '[Home](./index.md) &gt; [@noderepair/envtest\\_\\_vitest\\_\\_global-setup](./envtest__vitest__global-setup.md)',
      '## envtest\\_\\_vitest package',
      '[@noderepair/core\\_\\_kfc](./core__kfc.md) and [@noderepair/core](./core.md)',
    ].join('\n');
    expect(restoreSpecifiers(page, [core, kfc, vitest, setup])).toBe(
      [
        '[Home](./index.md) &gt; [@noderepair/envtest/vitest/global-setup](./envtest__vitest__global-setup.md)',
        '## envtest/vitest package',
        '[@noderepair/core/kfc](./core__kfc.md) and [@noderepair/core](./core.md)',
      ].join('\n'),
    );
  });
});

// `pnpm api:check` fails on what stalePages reports: a checked-in page must match a fresh render.
describe('stale api docs', () => {
  const pages = (o: Record<string, string>) => new Map(Object.entries(o));

  it('reports nothing when the checked-in pages are the fresh ones', () => {
    const same = pages({ 'core.md': 'a', 'core.node.md': 'b' });
    expect(stalePages(same, new Map(same))).toEqual({ changed: [], missing: [], orphaned: [] });
  });

  it('reports changed, missing and orphaned pages by name, sorted', () => {
    const fresh = pages({ 'core.md': 'new', 'core.b.md': 'b', 'core.a.md': 'a', 'core.x.md': 'x' });
    const checkedIn = pages({ 'core.md': 'old', 'core.x.md': 'x', 'core.gone.md': 'g' });
    expect(stalePages(fresh, checkedIn)).toEqual({
      changed: ['core.md'],
      missing: ['core.a.md', 'core.b.md'],
      orphaned: ['core.gone.md'],
    });
  });
});
