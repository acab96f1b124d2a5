/**
 * The vitest global setup of integration projects: name this module in `globalSetup`. It starts one
 * control plane per vitest worker, so parallel test files never share an API server, and stops
 * them when the run ends.
 *
 * @packageDocumentation
 */
import type { TestProject } from 'vitest/node';
// First: tsc keeps the package comment in the .d.ts only above an import it keeps.
import { availableParallelism } from 'node:os';
import { ControlPlane } from '../control-plane.js';
import type { SharedControlPlane } from './provided.js';

/**
 * vitest global setup for integration projects: starts one control plane per worker (etcd,
 * kube-apiserver and kube-controller-manager with the node lifecycle controller on short
 * grace periods) and hands their kubeconfigs to the workers. Workers pick theirs by
 * VITEST_POOL_ID, so parallel test files never share an API server with another worker.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = project.globalConfig.maxWorkers;
  const workers = Math.max(
    1,
    typeof configured === 'number' ? configured : Math.max(1, availableParallelism() - 1),
  );
  const count = Math.min(workers, Number(process.env.NODEREPAIR_ENVTEST_PLANES ?? 4));
  const planes: ControlPlane[] = [];
  try {
    for (let i = 0; i < count; i++) {
      planes.push(
        await ControlPlane.start({
          controllerManager: { nodeMonitorGracePeriodSeconds: 8, nodeMonitorPeriodSeconds: 1 },
          progress: (l) => process.stderr.write(`${l}\n`),
        }),
      );
    }
  } catch (err) {
    await Promise.all(planes.map((p) => p.stop()));
    throw err;
  }
  const shared: SharedControlPlane[] = planes.map((p) => ({
    kubeconfigPath: p.kubeconfigPath,
    server: p.server,
    version: p.version,
    logFiles: p.logFiles,
  }));
  project.provide('noderepairEnvtest', shared);
  process.stderr.write(
    planes.map((p) => `envtest: kube-apiserver ${p.version} ready at ${p.server}\n`).join(''),
  );
  return async () => {
    await Promise.all(planes.map((p) => p.stop()));
  };
}
