// Shared vitest settings: workspace packages resolve to their TypeScript sources, so tests
// never depend on a stale dist/. Published consumers get dist/ through the exports map.
import { fileURLToPath } from 'node:url';
import type { ViteUserConfig } from 'vitest/config';

const pkg = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

export const alias = [
  { find: '@noderepair/core/kfc', replacement: pkg('core/src/kube/kfc/index.ts') },
  { find: '@noderepair/core/codec', replacement: pkg('core/src/codec/index.ts') },
  { find: '@noderepair/openstack/testing', replacement: pkg('openstack/src/testing/index.ts') },
  { find: '@noderepair/openstack/provider', replacement: pkg('openstack/src/provider-module.ts') },
  { find: '@noderepair/envtest/vitest', replacement: pkg('envtest/src/vitest/index.ts') },
  { find: /^@noderepair\/(core|envtest|openstack|capo-remediation|overlayfs-gen)$/, replacement: pkg('$1/src/index.ts') },
];

/** Base config for a package's vitest project. */
export function project(name: string, extra: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  return {
    resolve: { alias },
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: ['**/*.int.test.ts', '**/*.vm.test.ts', '**/node_modules/**', '**/dist/**'],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      ...extra,
    },
  };
}
