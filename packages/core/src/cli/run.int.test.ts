// `noderepair run` against a real kube-apiserver. With --dry-run: it judges a NotReady node,
// says what it would do in Events, serves probes and metrics, and changes nothing. With a
// provider loaded by --provider-module (a real module file on disk): it cordons, hands the
// repair to that provider with the options given, and uncordons once the node is back.
import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { freePort, startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import { EventResource, LeaseResource } from '../kube/resource.js';
import type { KubeEvent, KubeLease } from '../kube/types.js';
import { runCli } from './noderepair.js';

const env = useControlPlane();

describe('noderepair run', () => {
  it('--dry-run reports the repair it would make and leaves the node alone', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('run-dry');
    const name = env.unique('run-dry-node');
    const dir = await mkdtemp(join(tmpdir(), 'noderepair-run-'));
    const policyPath = join(dir, 'policy.yaml');
    await writeFile(
      policyPath,
      [
        'unhealthyConditions:',
        '  - { type: Ready, status: "False", timeout: 2s }',
        'stormGuard: { recheckInterval: 1s }',
      ].join('\n'),
    );
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { 'test.noderepair.io/run': scope },
      heartbeatSeconds: 1,
    });
    const [probePort, metricsPort] = [await freePort(), await freePort()];
    const leaseNs = await env.namespace('run-dry');
    const stop = new AbortController();
    const err: string[] = [];
    const exit = runCli(
      [
        'run',
        '--kubeconfig',
        env.kubeconfigPath,
        '--policy',
        policyPath,
        '--dry-run',
        '--label-selector',
        `test.noderepair.io/run=${scope}`,
        '--health-probe-bind-address',
        `127.0.0.1:${probePort}`,
        '--metrics-bind-address',
        `127.0.0.1:${metricsPort}`,
        '--leader-elect',
        '--leader-election-namespace',
        leaseNs,
      ],
      {
        stdout: () => {},
        stderr: (l) => err.push(l),
        readFile: (p) => readFile(p, 'utf8'),
        run: { signal: stop.signal, env: { POD_NAME: `pod-${scope}` } },
      },
    );
    try {
      await waitFor(
        'readyz',
        async () =>
          (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200 ? true : undefined,
        20_000,
      );
      await kubelet.setNotReady('container runtime is down');
      const events = await waitFor(
        'dry-run events',
        async () => {
          const evs = (
            await client.list<KubeEvent>(EventResource, { namespace: 'default' })
          ).items.filter((e) => e.regarding?.name === name);
          return evs.some((e) => e.reason === 'ActionAccepted') ? evs : undefined;
        },
        30_000,
      );
      const reasons = events.map((e) => e.reason);
      expect(reasons).toContain('RepairStarted');
      expect(
        events
          .filter((e) => e.reason === 'DryRun')
          .map((e) => e.action)
          .sort(),
      ).toEqual(['Cordon', 'Drain']);
      expect(events.find((e) => e.reason === 'ActionAccepted')?.note).toMatch(
        /via dry-run: dry-run: would SoftReboot/,
      );
      const node = await core.readNode({ name });
      expect(node.spec?.unschedulable ?? false).toBe(false);
      expect(node.metadata?.annotations?.['noderepair.io/repair-state']).toBeUndefined();
      // It leads through its own Lease (controllers run only while leading).
      const lease = await client.get<KubeLease>(LeaseResource, 'noderepair-autorepair', {
        namespace: leaseNs,
      });
      // POD_NAME plus a random suffix: a restarted container of the same Pod is a new holder.
      expect(lease.spec?.holderIdentity).toMatch(new RegExp(`^pod-${scope}_[0-9a-f-]{36}$`));
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(
        /noderepair_remediations_started_total\{cause="ContainerRuntimeDown",step="SoftReboot"\} 1/,
      );
    } finally {
      stop.abort();
      expect(await exit).toBe(0);
      expect(err).toEqual([]);
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('--provider-module: the module gets its options, the default ladder is cut to what it can do, the repair is real', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('run-module');
    const name = env.unique('run-module-node');
    const dir = await mkdtemp(join(tmpdir(), 'noderepair-run-'));
    const policyPath = join(dir, 'policy.yaml');
    // No ladder: the default (SoftReboot, HardReboot) cut to this provider's SoftReboot.
    await writeFile(
      policyPath,
      [
        'unhealthyConditions:',
        '  - { type: Ready, status: "False", timeout: 2s }',
        'minHealthyPeriod: 1s',
        'drain: { enabled: false }',
        'stormGuard: { recheckInterval: 1s }',
      ].join('\n'),
    );
    // FAKE provider in a real module file: records what it is asked (in this process, as the
    // CLI runs in-process here) and accepts; it can only soft-reboot.
    const record = `__noderepairRunModule_${scope.replace(/\W/g, '_')}`;
    await writeFile(
      join(dir, 'recording-provider.mjs'),
      `export default {
  name: 'recording-fixture',
  options: { zone: 'the zone' },
  create(ctx) {
    const seen = (globalThis[${JSON.stringify(record)}] = { options: ctx.options, requests: [] });
    return {
      name: 'recording-fixture',
      actions: new Set(['SoftReboot']),
      async execute(req) {
        seen.requests.push({ action: req.action, node: req.node, providerID: req.providerID });
        return { kind: 'Accepted', message: 'recorded ' + req.action };
      },
      async fence() {
        return { kind: 'NotFenced', reason: 'fixture' };
      },
    };
  },
};
`,
    );
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { 'test.noderepair.io/run': scope },
      heartbeatSeconds: 1,
      providerID: `fixture:///${name}`,
    });
    const probePort = await freePort();
    const stop = new AbortController();
    const err: string[] = [];
    const exit = runCli(
      [
        'run',
        '--kubeconfig',
        env.kubeconfigPath,
        '--policy',
        policyPath,
        '--provider-module',
        './recording-provider.mjs',
        '--provider-opt',
        'zone=z1',
        '--label-selector',
        `test.noderepair.io/run=${scope}`,
        '--health-probe-bind-address',
        `127.0.0.1:${probePort}`,
        '--metrics-bind-address',
        '0',
      ],
      {
        stdout: () => {},
        stderr: (l) => err.push(l),
        readFile: (p) => readFile(p, 'utf8'),
        run: { signal: stop.signal, env: { POD_NAME: `pod-${scope}` }, cwd: dir },
      },
    );
    const seen = () =>
      (globalThis as Record<string, unknown>)[record] as
        | { options: Record<string, string>; requests: { action: string }[] }
        | undefined;
    try {
      await waitFor(
        'readyz',
        async () =>
          (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200 ? true : undefined,
        20_000,
      );
      expect(seen()?.options).toEqual({ zone: 'z1' });
      await kubelet.setNotReady('container runtime is down');
      await waitFor(
        'the provider asked',
        async () => (seen()?.requests.length ? true : undefined),
        30_000,
      );
      expect(seen()?.requests).toEqual([
        { action: 'SoftReboot', node: name, providerID: `fixture:///${name}` },
      ]);
      // Not a dry run: the cordon is real.
      expect((await core.readNode({ name })).spec?.unschedulable).toBe(true);
      const succeeded = await waitFor(
        'ActionAccepted',
        async () =>
          (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.find(
            (e) => e.regarding?.name === name && e.reason === 'ActionAccepted',
          ),
        30_000,
      );
      expect(succeeded.note).toMatch(/via recording-fixture: recorded SoftReboot/);
      await kubelet.setReady();
      await waitFor(
        'uncordoned',
        async () => ((await core.readNode({ name })).spec?.unschedulable ? undefined : true),
        30_000,
      );
    } finally {
      stop.abort();
      expect(await exit).toBe(0);
      expect(err).toEqual([]);
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
