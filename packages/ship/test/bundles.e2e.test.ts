// The install bundles, rendered and installed by the real tools (kubectl v1.35.4 with its
// kustomize, helm v4.3.2; both built from their Go modules): install.yaml is the current
// kustomize build; both charts lint; their defaults render the same Deployments, RBAC and
// policy as the kustomize bundles; the kustomize bundles go on envtest by server-side apply
// and the charts by `helm install` (server-side apply in helm 4), and the Deployments the API
// server stored run exactly the containers the container test ran (test/containers.e2e.test.ts
// starts its containers from install.yaml's pod templates).
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { createKubeClient, customResource, type KubeObject } from '@noderepair/core/kube';
import { startControlPlane, type ControlPlane } from '@noderepair/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES, generatedFiles, renderHelm, type BundleSpec } from '../src/bundles.js';
import { exec, repoRoot } from '../src/exec.js';
import type { ControllerName } from '../src/images.js';
import {
  deploymentOf,
  parseDocs,
  podmanRunArgs,
  type KubeDoc,
  type PodTemplate,
} from '../src/pod-template.js';
import { ensureTools } from '../src/tools.js';

const names = ['capo-remediation', 'noderepair'] as const;
let helm = '';
let kubectl = '';

const DeploymentResource = customResource({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
});
const TemplateResource = customResource({
  group: 'remediation.noderepair.dev',
  version: 'v1alpha1',
  kind: 'OpenStackRemediationTemplate',
  plural: 'openstackremediationtemplates',
  namespaced: true,
});

const installYaml = (n: ControllerName) =>
  readFileSync(join(repoRoot, BUNDLES[n].installYaml), 'utf8');
const rulesOf = (docs: KubeDoc[]) =>
  Object.fromEntries(
    docs
      .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
      .map((d) => [`${d.kind}/${d.metadata.name}`, d['rules']]),
  );
const policyOf = (docs: KubeDoc[]) => {
  const cm = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'noderepair-policy');
  return cm
    ? YAML.parse((cm['data'] as Record<string, string>)['policy.yaml'] as string)
    : undefined;
};

/** What a test replica would run for this pod template (fixed stand-ins for the per-run parts). */
const runOf = (t: PodTemplate) =>
  podmanRunArgs(t, {
    podName: 'pod-0',
    namespace: 'noderepair-system',
    image: 'image',
    volumeSources: { policy: '/policy', clouds: '/clouds' },
    serviceAccountDir: '/sa',
    apiServer: { host: '127.0.0.1', port: 6443 },
    metricsPort: 1,
    probePort: 2,
  });

beforeAll(async () => {
  ({ helm, kubectl } = await ensureTools());
});

it('deploy/*/install.yaml and the chart CRDs are what `pnpm ship bundles` renders now', async () => {
  const files = await generatedFiles(kubectl);
  expect(files.size).toBeGreaterThanOrEqual(4);
  for (const [f, text] of files)
    expect(readFileSync(f, 'utf8'), `${f}: run pnpm ship bundles`).toBe(text);
});

describe.each(names)('the %s chart', (n) => {
  const b: BundleSpec = BUNDLES[n];
  const all: Record<string, string> = {
    replicaCount: '3',
    'image.tag': '9.9.9',
    'resources.limits.memory': '512Mi',
    'cloudsSecret.name': 'cloud-config',
    'metrics.serviceMonitor.enabled': 'true',
    ...(n === 'noderepair'
      ? { labelSelector: 'node-role.kubernetes.io/worker', 'policy.dryRun': 'false' }
      : {}),
  };

  it('lints with its defaults and with every value set', async () => {
    await exec(helm, ['lint', '--strict', join(repoRoot, b.chart)]);
    const set = Object.entries(all).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    await exec(helm, ['lint', '--strict', join(repoRoot, b.chart), ...set]);
  });

  it('renders by default the Deployment, RBAC and policy of the kustomize bundle', async () => {
    const k = parseDocs(installYaml(n));
    const h = parseDocs(await renderHelm(helm, b));
    const kd = deploymentOf(k);
    const hd = deploymentOf(h);
    expect(hd.spec.template.spec).toEqual(kd.spec.template.spec);
    expect(hd.spec['replicas']).toBe(kd.spec['replicas']);
    expect(hd.spec['selector']).toEqual(kd.spec['selector']);
    expect(rulesOf(h)).toEqual(rulesOf(k));
    expect(policyOf(h)).toEqual(policyOf(k));
    const crds = (docs: KubeDoc[]) => docs.filter((d) => d.kind === 'CustomResourceDefinition');
    expect(crds(h)).toEqual(crds(k));
  });

  if (n === 'noderepair')
    it('grants delete on nodes only when the policy ladder has Replace, as rbac-replace.yaml', async () => {
      const verbsOnNodes = (docs: KubeDoc[]) =>
        docs
          .filter((d) => d.kind === 'ClusterRole')
          .flatMap((d) => (d['rules'] as { resources: string[]; verbs: string[] }[]) ?? [])
          .filter((r) => r.resources.includes('nodes'))
          .flatMap((r) => r.verbs);
      const plain = parseDocs(await renderHelm(helm, b));
      expect(verbsOnNodes(plain)).not.toContain('delete');
      const withReplace = parseDocs(
        await renderHelm(helm, b, {
          'policy.ladder[0].action': 'HardReboot',
          'policy.ladder[1].action': 'Replace',
        }),
      );
      expect(verbsOnNodes(withReplace)).toContain('delete');
      const example = parseDocs(
        readFileSync(join(repoRoot, 'examples/standalone/rbac-replace.yaml'), 'utf8'),
      );
      const pick = (docs: KubeDoc[]) =>
        docs
          .filter((d) => d.metadata.name === 'noderepair-autorepair-replace')
          .map((d) => ({ kind: d.kind, rules: d['rules'], roleRef: d['roleRef'] }));
      expect(pick(withReplace)).toEqual(pick(example));
      expect(pick(withReplace)).toHaveLength(2);
    });

  it('renders every value where it belongs', async () => {
    const h = parseDocs(await renderHelm(helm, b, all));
    const d = deploymentOf(h);
    const c = d.spec.template.spec.containers[0]!;
    expect(d.spec['replicas']).toBe(3);
    expect(c.image).toBe(`ghcr.io/noderepair/${n}:9.9.9`);
    expect((c['resources'] as { limits: { memory: string } }).limits.memory).toBe('512Mi');
    if (n === 'capo-remediation')
      expect(c.args).toContain('--default-identity-secret=cloud-config');
    else {
      expect(c.args).toContain('--label-selector=node-role.kubernetes.io/worker');
      expect(c.volumeMounts).toContainEqual({
        name: 'clouds',
        mountPath: '/etc/openstack',
        readOnly: true,
      });
      expect(policyOf(h)).toMatchObject({ dryRun: false });
    }
    const sm = h.find((x) => x.kind === 'ServiceMonitor');
    const svc = h.find((x) => x.kind === 'Service');
    expect(sm?.spec?.['endpoints']).toEqual([
      { port: 'metrics', path: '/metrics', interval: '30s' },
    ]);
    // The ServiceMonitor selects the metrics Service, whose port it names.
    const sel = (sm?.spec?.['selector'] as { matchLabels: Record<string, string> }).matchLabels;
    expect(svc?.metadata['labels']).toMatchObject(sel);
    expect((svc?.spec?.['ports'] as Array<{ name: string }>)[0]?.name).toBe('metrics');
  });
});

describe('installed on envtest', () => {
  // Two control planes: the kustomize bundles and the charts own the same cluster-scoped
  // objects (CRDs, ClusterRoles), which helm refuses to adopt from another owner.
  let kcp: ControlPlane;
  let hcp: ControlPlane;
  beforeAll(async () => {
    [kcp, hcp] = [
      await startControlPlane({ startTimeoutMs: 120_000 }),
      await startControlPlane({ startTimeoutMs: 120_000 }),
    ];
  });
  afterAll(async () => {
    await kcp?.stop();
    await hcp?.stop();
  });

  it('the kustomize bundles (server-side apply) and the charts (helm install) store the same pod templates, which run the containers the container test ran', async () => {
    for (const n of names) {
      const b = BUNDLES[n];
      await exec(kubectl, [
        '--kubeconfig',
        kcp.kubeconfigPath,
        'apply',
        '--server-side',
        '--field-manager=noderepair-install',
        '-f',
        join(repoRoot, b.installYaml),
      ]);
      const values = join(tmpdir(), `noderepair-ship-${n}-values.yaml`);
      writeFileSync(
        values,
        YAML.stringify(
          n === 'capo-remediation'
            ? {
                policy: {
                  remediationTemplates: [
                    {
                      name: 'openstack-reboot',
                      namespace: 'default',
                      spec: {
                        template: {
                          spec: { steps: [{ type: 'SoftReboot', timeoutSeconds: 600 }] },
                        },
                      },
                    },
                  ],
                },
              }
            : {},
        ),
      );
      await exec(helm, [
        'install',
        n,
        join(repoRoot, b.chart),
        '--kubeconfig',
        hcp.kubeconfigPath,
        '--namespace',
        b.namespace,
        '--create-namespace',
        '--values',
        values,
      ]);
      const stored = async (cp: ControlPlane) =>
        (
          await createKubeClient(cp.kubeConfig).get<
            KubeObject & { spec: { template: PodTemplate } }
          >(DeploymentResource, deploymentOf(parseDocs(installYaml(n))).metadata.name, {
            namespace: b.namespace,
          })
        ).spec.template;
      const [fromKustomize, fromHelm] = [await stored(kcp), await stored(hcp)];
      expect(fromHelm.spec).toEqual(fromKustomize.spec);
      const ran = runOf(deploymentOf(parseDocs(installYaml(n))).spec.template);
      expect(runOf(fromKustomize)).toEqual(ran);
      expect(runOf(fromHelm)).toEqual(ran);
      const list = await exec(helm, [
        'list',
        '--kubeconfig',
        hcp.kubeconfigPath,
        '--namespace',
        b.namespace,
        '--output',
        'json',
      ]);
      expect(
        (JSON.parse(list) as Array<{ name: string; status: string }>).find((r) => r.name === n)
          ?.status,
      ).toBe('deployed');
    }
    // The capo chart's policy value: the OpenStackRemediationTemplate, accepted by the CRD's schema.
    const t = await createKubeClient(hcp.kubeConfig).get<KubeObject & { spec: unknown }>(
      TemplateResource,
      'openstack-reboot',
      { namespace: 'default' },
    );
    // The API server adds the schema's defaults to what the values gave.
    expect(t.spec).toMatchObject({
      template: { spec: { steps: [{ type: 'SoftReboot', timeoutSeconds: 600 }] } },
    });
  });
});
