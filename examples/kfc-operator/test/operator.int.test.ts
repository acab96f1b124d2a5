// The example operator as a user runs it (`pnpm start`: its own process, configured by
// environment variables, finding the cluster through KUBECONFIG the way KFC does) against the
// worker's real kube-apiserver and node lifecycle controller, with three fake-kubelet Nodes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, EventsV1Api } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { expect, it } from 'vitest';

const env = useControlPlane();
const exampleDir = fileURLToPath(new URL('..', import.meta.url));

// Short timeouts so the test sees a decision within seconds (the defaults are minutes).
const policy = `
unhealthyConditions:
  - { type: Ready, status: "False", timeout: 2s }
  - { type: Ready, status: Unknown, timeout: 2s }
minHealthyPeriod: 5s
ladder:
  - { action: SoftReboot, timeout: 60s, attempts: 1 }
stormGuard: { maxUnhealthy: 40%, minUnhealthyAllowed: 1, maxInFlight: 1, recheckInterval: 2s }
drain: { enabled: true, timeout: 30s, outOfServiceAfter: 30s }
`;

interface Line {
  phase?: string;
  cause?: string;
}

it('judges the Nodes with core (dry-run), publishes their status with KFC, and changes no Node', async () => {
  const ns = await env.namespace('kfc-operator');
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const events = env.kubeConfig.makeApiClient(EventsV1Api);
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'noderepair-policy' }, data: { 'policy.yaml': policy } },
  });
  const pool = env.unique('pool');
  const names = ['a', 'b', 'c'].map((n) => env.unique(`kfc-${n}`));
  const kubelets: FakeKubelet[] = [];
  for (const name of names) {
    kubelets.push(
      await startFakeKubelet(env.kubeConfig, {
        name,
        labels: { 'example.noderepair.dev/pool': pool },
        heartbeatSeconds: 1,
      }),
    );
  }

  const operator = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'src/main.ts'],
    {
      cwd: exampleDir,
      env: {
        ...process.env,
        KUBECONFIG: env.kubeconfigPath,
        NAMESPACE: ns,
        LABEL_SELECTOR: `example.noderepair.dev/pool=${pool}`,
        STATUS_INTERVAL_SECONDS: '0.5',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  operator.stdout.on('data', (d) => (output += d));
  operator.stderr.on('data', (d) => (output += d));
  const exited = once(operator, 'exit') as Promise<[number | null, string | null]>;

  const status = async (): Promise<Record<string, string>> =>
    (await core.readNamespacedConfigMap({ name: 'noderepair-status', namespace: ns })).data ?? {};
  const line = (data: Record<string, string>, node: string): Line =>
    JSON.parse(data[node] ?? '{}') as Line;
  const [, broken] = names as [string, string, string];
  try {
    const healthy = await waitFor(
      'all three Nodes Healthy in the status ConfigMap',
      async () => {
        const d = await status();
        return names.every((n) => line(d, n).cause === 'Healthy') ? d : undefined;
      },
      120_000,
    );
    expect(healthy['summary']).toBe('3 node(s): 3 Healthy');

    kubelets[1]!.stopHeartbeats(); // the node lifecycle controller marks it Unknown
    const repairing = await waitFor(
      `${broken} judged KubeletUnreachable and a (dry) repair started`,
      async () => {
        const d = await status();
        const l = line(d, broken);
        return l.cause === 'KubeletUnreachable' && !['Healthy', 'Suspect'].includes(l.phase ?? '')
          ? d
          : undefined;
      },
      120_000,
    );
    expect(repairing['summary']).toMatch(
      /^3 node\(s\): 2 Healthy, 1 (Unhealthy|Remediating|Verifying)$/,
    );

    // What it would have done is told in Events on the Node ...
    const dry = await waitFor(
      `a DryRun event about ${broken}`,
      async () =>
        (
          await events.listNamespacedEvent({
            namespace: 'default',
            fieldSelector: `regarding.name=${broken}`,
          })
        ).items.find((e) => e.reason === 'DryRun' && /would cordon/.test(e.note ?? '')),
      60_000,
    );
    expect(dry.reportingController).toBe('noderepair.io/autorepair');
    // ... and nothing was done: not cordoned, no repair-state annotation.
    const node = await core.readNode({ name: broken });
    expect(node.spec?.unschedulable ?? false).toBe(false);
    expect(node.metadata?.annotations?.['noderepair.io/repair-state']).toBeUndefined();
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- operator output ---\n${output.slice(-4000)}`);
  } finally {
    operator.kill('SIGTERM');
    for (const k of kubelets) await k.stop();
    // Unknown Nodes must not linger for the next file's storm guard on this control plane.
    await Promise.all(names.map((name) => core.deleteNode({ name }).catch(() => undefined)));
  }
  const [code, signal] = await exited;
  expect({ code, signal }, output.slice(-2000)).toEqual({ code: 0, signal: null }); // clean SIGTERM shutdown
});
