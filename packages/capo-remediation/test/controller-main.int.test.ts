// The controller process as the Deployment runs it (src/controller/main.ts with the args of
// config/manager/manager.yaml), against a real kube-apiserver: it takes the Lease, serves
// /readyz on the probe port and /metrics on the metrics port, and stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKubeClient, LeaseResource, type KubeLease } from '@noderepair/core/kube';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { installAllCRDs, until } from './support/remediation-env.js';

const env = useControlPlane();
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('controller main', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('runs with the Deployment flags: Lease, /readyz, /metrics, graceful SIGTERM', async () => {
    const ns = await env.namespace('osr-main');
    const [metricsPort, probePort] = [await freePort(), await freePort()];
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(pkg, 'src', 'controller', 'main.ts'),
        `--kubeconfig=${env.kubeconfigPath}`,
        '--leader-elect',
        '--leader-election-id=capo-remediation.noderepair.dev',
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
      ],
      {
        cwd: pkg,
        env: { ...process.env, POD_NAMESPACE: ns, POD_NAME: 'controller-0', LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    try {
      await until(
        '/readyz 200',
        async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200,
        // Generous: tsx compiles the controller on start, and a loaded CI machine is slow
        // (a run at load average 24 took ~60 s here).
        180_000,
        500,
      );
      const client = createKubeClient(env.kubeConfig);
      const lease = await until(
        'the Lease',
        () =>
          client.get<KubeLease>(LeaseResource, 'capo-remediation.noderepair.dev', {
            namespace: ns,
          }),
        30_000,
      );
      // POD_NAME plus a per-process suffix: a restarted container is a new candidate.
      expect(lease.spec?.holderIdentity).toMatch(/^controller-0_[0-9a-f-]{36}$/);
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toContain('noderepair_openstack_remediation_actions_total');
      expect(metrics).toContain('controller_runtime_reconcile_total');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
  }, 300_000);
});
