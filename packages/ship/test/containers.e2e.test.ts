// Both controller images, built from their Containerfiles on the local Node base, run as two
// replicas each on envtest, started from the install bundles' pod templates
// (deploy/<name>/install.yaml): one leads; SIGKILLed, the other takes over; a remediation
// completes through the container; SIGTERM ends it within the grace period and releases the
// Lease; /metrics, /healthz, /readyz answer; the process is user 65532 without capabilities; the
// root file system is read-only and the container layer unchanged. Figures: reports/ship-containers.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import {
  createKubeClient,
  EventResource,
  NodeResource,
  type KubeEvent,
  type KubeNode,
} from '@noderepair/core/kube';
import {
  startControlPlane,
  startFakeKubelet,
  type ControlPlane,
  type FakeKubelet,
} from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, SYSTEM_NAMESPACE } from '../../chaos/src/capo-world.js';
import {
  applyObjects,
  serviceAccountToken,
  type ManifestObject,
} from '../../chaos/src/least-privilege.js';
import { until } from '../../chaos/src/wait.js';
import { ensureBaseImages } from '../src/base-image.js';
import { BUNDLES } from '../src/bundles.js';
import { repoRoot } from '../src/exec.js';
import {
  buildImage,
  IMAGES,
  makeContext,
  removeContext,
  type BuiltImage,
  type ControllerName,
} from '../src/images.js';
import { deploymentOf, parseDocs, type KubeDoc } from '../src/pod-template.js';
import { leaderLifecycle, scratchDir, withFakeRecordingProvider } from './support/replicas.js';

const version = (
  JSON.parse(readFileSync(join(repoRoot, 'packages', 'core', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
const built = new Map<ControllerName, BuiltImage>();
const report: Record<string, unknown> = {};
const bundle = (n: ControllerName): KubeDoc[] =>
  parseDocs(readFileSync(join(repoRoot, BUNDLES[n].installYaml), 'utf8'));

beforeAll(async () => {
  const bases = await ensureBaseImages();
  for (const n of ['capo-remediation', 'noderepair'] as const) {
    const ctx = await makeContext(IMAGES[n]);
    try {
      built.set(n, await buildImage(IMAGES[n], ctx, version, { bases }));
    } finally {
      removeContext(ctx);
    }
  }
});

afterAll(() => {
  const images = Object.fromEntries(
    [...built].map(([n, b]) => [
      n,
      { ref: b.ref, sizeMB: +(b.size / 1e6).toFixed(1), buildSeconds: Math.round(b.seconds) },
    ]),
  );
  const out = { generatedAt: new Date().toISOString(), images, ...report };
  mkdirSync(join(repoRoot, 'reports'), { recursive: true });
  writeFileSync(
    join(repoRoot, 'reports', 'ship-containers.json'),
    `${JSON.stringify(out, null, 2)}\n`,
  );
  console.log(`\n==> ship: images and container figures\n${JSON.stringify(out, null, 2)}\n`);
});

it("builds both images, tagged with the packages' version, non-root by default", async () => {
  for (const n of ['capo-remediation', 'noderepair'] as const) {
    const b = built.get(n);
    expect(b?.ref).toBe(`${IMAGES[n].repository}:${version}`);
    const { podman } = await import('../src/podman.js');
    expect(
      (await podman(['image', 'inspect', '--format', '{{.Config.User}}', b!.ref])).trim(),
    ).toBe('65532:65532');
  }
});

describe('capo-remediation: two replicas of the image', () => {
  let cluster: CapoCluster;
  beforeAll(async () => {
    cluster = await CapoCluster.start(scratchDir('noderepair-ship-capo-'), 'ship-capo');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('leads, fails over, remediates a Machine through Nova, stops cleanly', async () => {
    const kc = YAML.parse(readFileSync(cluster.kubeconfig, 'utf8')) as {
      users: Array<{ user: { token: string } }>;
    };
    const figures: Record<string, number | string> = {};
    report['capo-remediation'] = figures;
    await leaderLifecycle(
      {
        template: deploymentOf(bundle('capo-remediation')).spec.template,
        image: built.get('capo-remediation')!.ref,
        namespace: SYSTEM_NAMESPACE,
        server: cluster.cp.server,
        caPem: cluster.cp.caPem,
        token: kc.users[0]!.user.token,
        client: cluster.admin,
        leaseName: 'capo-remediation.noderepair.dev',
        metricsMatch: /noderepair_openstack_remediation_actions_total/,
      },
      async () => {
        // The existing scenario (packages/chaos capo-leader): a v1beta2 Machine whose Node
        // went NotReady, the OpenStackRemediation cloned from its template, FakeOpenStack Nova.
        const w = await cluster.world('ship-osr', {
          steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
          drain: { enabled: true, timeoutSeconds: 60 },
          minHealthySeconds: 1,
        });
        // The bundle runs with the default workload-cluster access (auto): the Nodes are
        // reached through Cluster API's <cluster>-kubeconfig Secret, as in production.
        await w.publishKubeconfigSecret(readFileSync(cluster.kubeconfig, 'utf8'));
        await w.breakNode();
        await w.createRemediation();
        const done = await until(
          'the remediation to succeed',
          async () => ((await w.phase()) === 'Succeeded' ? true : undefined),
          240_000,
          500,
        );
        expect(done).toBe(true);
        expect(w.rebootCount()).toBe(1);
        expect(w.nodeReboots).toBe(1);
      },
      expect,
      figures,
    );
  });
});

describe('noderepair run: two replicas of the image', () => {
  let cp: ControlPlane;
  const kubelets: FakeKubelet[] = [];
  beforeAll(async () => {
    cp = await startControlPlane({ startTimeoutMs: 120_000 });
  });
  afterAll(async () => {
    for (const k of kubelets) await k.stop().catch(() => undefined);
    await cp?.stop();
  });

  it('leads, fails over, repairs a NotReady node, stops cleanly', async () => {
    const docs = bundle('noderepair');
    // The bundle's RBAC, verbatim; the Deployment is what the containers play.
    const rbac = docs.filter((d) => d.kind !== 'Deployment' && d.kind !== 'ConfigMap');
    await applyObjects(cp.kubeConfig, rbac as ManifestObject[]);
    const token = await serviceAccountToken(cp.kubeConfig, 'noderepair-system', 'noderepair');
    const client = createKubeClient(cp.kubeConfig);
    // The policy ConfigMap's volume: a real policy (the bundle's starts in dry-run), quick timers.
    const policyDir = scratchDir('noderepair-ship-policy-');
    writeFileSync(
      join(policyDir, 'policy.yaml'),
      YAML.stringify({
        unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '2s' }],
        ladder: [{ action: 'SoftReboot', timeout: '2m' }],
        minHealthyPeriod: '1s',
        retryBackoff: '1s',
        stormGuard: { maxUnhealthy: '50%', minUnhealthyAllowed: 1, recheckInterval: '1s' },
      }),
    );
    for (const i of [0, 1, 2])
      kubelets.push(
        await startFakeKubelet(cp.kubeConfig, { name: `ship-node-${i}`, heartbeatSeconds: 1 }),
      );
    const broken = kubelets[0]!;
    const events = async (reason: string) =>
      (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
        (e) => e.reason === reason && e.regarding?.name === 'ship-node-0',
      );
    const figures: Record<string, number | string> = {};
    report['noderepair'] = figures;
    // Not a dry run (the cordon and the uncordon are real), so not the dry-run provider either.
    const fake = withFakeRecordingProvider(deploymentOf(docs).spec.template);
    await leaderLifecycle(
      {
        template: fake.template,
        image: built.get('noderepair')!.ref,
        namespace: 'noderepair-system',
        server: cp.server,
        caPem: cp.caPem,
        token,
        client,
        leaseName: 'noderepair-autorepair',
        volumeSources: { policy: policyDir, ...fake.volumeSources },
        metricsMatch: /noderepair_/,
      },
      async () => {
        await broken.setNotReady();
        await until(
          'RepairStarted on the node',
          async () => ((await events('RepairStarted')).length > 0 ? true : undefined),
          120_000,
          500,
        );
        // The FAKE provider records the reboot; the node's reboot is played here.
        await until(
          'the node cordoned',
          async () =>
            (await client.get<KubeNode>(NodeResource, 'ship-node-0')).spec?.unschedulable
              ? true
              : undefined,
          120_000,
          500,
        );
        await broken.reboot(300);
        await until(
          'RepairSucceeded',
          async () => ((await events('RepairSucceeded')).length > 0 ? true : undefined),
          180_000,
          500,
        );
        const node = await until(
          'the node uncordoned and Healthy',
          async () => {
            const n = await client.get<KubeNode>(NodeResource, 'ship-node-0');
            const state = n.metadata?.annotations?.['noderepair.io/repair-state'];
            const phase = state ? (JSON.parse(state) as { phase?: string }).phase : undefined;
            return n.spec?.unschedulable !== true && phase === 'Healthy' ? n : undefined;
          },
          120_000,
          500,
        );
        expect(node.metadata?.name).toBe('ship-node-0');
        expect(await events('RepairStarted')).toHaveLength(1);
      },
      expect,
      figures,
    );
  });
});
