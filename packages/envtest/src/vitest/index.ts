/**
 * vitest integration: connects a test file to the control plane its worker shares, started by the
 * global setup `@noderepair/envtest/vitest/global-setup`. Files of one worker run one after another
 * on the same API server; each file can ask for a namespace of its own, deleted after it.
 *
 * @packageDocumentation
 */
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import '../client-node-guard.js';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
// First: tsc keeps the package comment in the .d.ts only above an import it keeps.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { loadKubeConfig } from '../kubeconfig.js';
import type { SharedControlPlane } from './provided.js';
export type { SharedControlPlane } from './provided.js';

/**
 * A test file's handle on its worker's shared control plane. Its properties throw when read
 * outside tests and hooks (the plane is known only once beforeAll ran).
 */
export interface ControlPlaneFixture {
  /** The worker's KubeConfig (admin). Available inside tests and hooks. */
  readonly kubeConfig: KubeConfig;
  /** The API server URL, `https://127.0.0.1:<port>`. */
  readonly server: string;
  /** The API server's reported gitVersion, e.g. `v1.35.4`. */
  readonly version: string;
  /** Path of an admin kubeconfig file, for tools and child processes the test starts. */
  readonly kubeconfigPath: string;
  /** Creates a namespace unique to this test file run; deleted after the file. */
  namespace(prefix?: string): Promise<string>;
  /** A short random suffix for cluster-scoped names (Nodes, CRs) shared by parallel files. */
  unique(prefix: string): string;
}

/**
 * Connects a test file to its worker's shared control plane (started by
 * @noderepair/envtest's vitest global setup). Call at the top level of the file.
 * When a test fails, the tail of the components' logs is printed.
 */
export function useControlPlane(): ControlPlaneFixture {
  let shared: SharedControlPlane | undefined;
  let kc: KubeConfig | undefined;
  const namespaces: string[] = [];

  beforeAll(() => {
    const all = inject('noderepairEnvtest');
    if (!all || all.length === 0) {
      throw new Error(
        'no shared control plane: run this file in a vitest project whose globalSetup is @noderepair/envtest/vitest/global-setup',
      );
    }
    const pool = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 1);
    shared = all[(Math.max(1, pool) - 1) % all.length];
    kc = loadKubeConfig(shared!.kubeconfigPath);
  });

  afterEach((ctx) => {
    const failed = ctx.task.result?.state === 'fail';
    if (failed && shared) {
      for (const [name, file] of Object.entries(shared.logFiles)) {
        let tail = '';
        try {
          tail = readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
        } catch {
          tail = '(no log)';
        }
        process.stderr.write(`--- ${name} log tail (${file}) ---\n${tail}\n`);
      }
    }
  });

  afterAll(async () => {
    if (!kc) return;
    const core = kc.makeApiClient(CoreV1Api);
    await Promise.all(
      namespaces.map((name) => core.deleteNamespace({ name }).catch(() => undefined)),
    );
  });

  const need = <T>(v: T | undefined): T => {
    if (v === undefined)
      throw new Error('useControlPlane(): the fixture is available inside tests and hooks only');
    return v;
  };

  return {
    get kubeConfig() {
      return need(kc);
    },
    get server() {
      return need(shared).server;
    },
    get version() {
      return need(shared).version;
    },
    get kubeconfigPath() {
      return need(shared).kubeconfigPath;
    },
    unique(prefix: string) {
      return `${prefix}-${randomBytes(3).toString('hex')}`;
    },
    async namespace(prefix = 't') {
      const core = need(kc).makeApiClient(CoreV1Api);
      const name = `${prefix}-${randomBytes(4).toString('hex')}`;
      await core.createNamespace({
        body: { metadata: { name, labels: { 'noderepair.dev/test': 'true' } } },
      });
      namespaces.push(name);
      return name;
    },
  };
}
