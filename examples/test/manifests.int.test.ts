// The example manifests as the API server judges them: every object is sent with
// `dryRun=All&fieldValidation=Strict`, so a misspelled or misplaced field is an error here
// (a plain apply would prune it silently). Real kube-apiserver, real CRDs.
//   - examples/standalone: rbac.yaml, rbac-replace.yaml, deploy.yaml and clouds-secret.example.yaml (built-in kinds);
//   - examples/overlay/cluster-api-workers.yaml rendered by overlayfs-gen into a
//     KubeadmConfigTemplate, against Cluster API's own CRD (the pinned module).
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { installCRDs } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { generate, kubeadmConfigTemplate, parseConfig } from '@noderepair/overlayfs-gen';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { capiModuleDir } from '../../packages/capo-remediation/test/support/capi-crds.js';

const env = useControlPlane();
const repo = fileURLToPath(new URL('../../', import.meta.url));

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** Resource paths of the kinds the examples use (a new kind fails loudly below). */
const plurals: Record<string, { plural: string; namespaced: boolean }> = {
  Namespace: { plural: 'namespaces', namespaced: false },
  ServiceAccount: { plural: 'serviceaccounts', namespaced: true },
  ConfigMap: { plural: 'configmaps', namespaced: true },
  Secret: { plural: 'secrets', namespaced: true },
  Deployment: { plural: 'deployments', namespaced: true },
  ClusterRole: { plural: 'clusterroles', namespaced: false },
  ClusterRoleBinding: { plural: 'clusterrolebindings', namespaced: false },
  Role: { plural: 'roles', namespaced: true },
  RoleBinding: { plural: 'rolebindings', namespaced: true },
  KubeadmConfigTemplate: { plural: 'kubeadmconfigtemplates', namespaced: true },
};

/** POSTs the object with a strict server-side dry run; resolves to the HTTP status and body. */
async function dryRunCreate(kc: KubeConfig, obj: Obj): Promise<{ status: number; body: string }> {
  const rt = plurals[obj.kind];
  if (!rt) throw new Error(`${obj.kind}: add its plural to the table in this test`);
  const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  const ns = rt.namespaced ? `/namespaces/${obj.metadata.namespace ?? 'default'}` : '';
  const url = new URL(
    `${kc.getCurrentCluster()!.server}${base}${ns}/${rt.plural}?dryRun=All&fieldValidation=Strict`,
  );
  const opts: https.RequestOptions = {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(obj));
  });
}

const load = (...path: string[]): Obj[] =>
  parseAllDocuments(readFileSync(join(repo, ...path), 'utf8'))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);

describe('example manifests, strict server-side dry run', () => {
  it('examples/standalone: every object of rbac.yaml, rbac-replace.yaml, deploy.yaml and the clouds.yaml Secret example is accepted as written', async () => {
    const objects = [
      ...load('examples', 'standalone', 'rbac.yaml'),
      ...load('examples', 'standalone', 'rbac-replace.yaml'),
      ...load('examples', 'standalone', 'deploy.yaml'),
      ...load('examples', 'standalone', 'clouds-secret.example.yaml'),
    ];
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining([
        'Namespace',
        'ServiceAccount',
        'ClusterRole',
        'ConfigMap',
        'Deployment',
        'Secret',
      ]),
    );
    // A dry-run Namespace is not stored, so the namespaced objects need the real one.
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    for (const o of objects.filter((o) => o.kind === 'Namespace')) {
      await core
        .createNamespace({ body: { metadata: { name: o.metadata.name } } })
        .catch(() => undefined);
    }
    const results = [];
    for (const o of objects) {
      const r = await dryRunCreate(env.kubeConfig, o);
      // 409: the Namespace just created for real (or a cluster-scoped object another test made);
      // the server validates before it finds the name taken, so a 409 is a valid object too.
      results.push({
        object: `${o.kind}/${o.metadata.name}`,
        ok: r.status === 201 || r.status === 409,
        detail: r.body.slice(0, 300),
      });
    }
    expect(results.filter((r) => !r.ok)).toEqual([]);
    // The strict check is real: a misspelled field is refused.
    const deploy = structuredClone(objects.find((o) => o.kind === 'Deployment')!) as Obj & {
      spec: Record<string, unknown>;
    };
    deploy.spec['replica'] = 2;
    const bad = await dryRunCreate(env.kubeConfig, deploy);
    expect(bad.status).toBe(400); // BadRequest: strict decoding error
    expect((JSON.parse(bad.body) as { message: string }).message).toContain(
      'unknown field "spec.replica"',
    );
  });

  it('examples/overlay: the KubeadmConfigTemplate rendered from cluster-api-workers.yaml fits Cluster API’s CRD', async () => {
    const crd = join(
      await capiModuleDir(),
      'bootstrap',
      'kubeadm',
      'config',
      'crd',
      'bases',
      'bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml',
    );
    await installCRDs(env.kubeConfig, [crd]);
    const config = parseConfig(
      readFileSync(join(repo, 'examples', 'overlay', 'cluster-api-workers.yaml'), 'utf8'),
    );
    if (config._tag === 'Left') throw new Error(JSON.stringify(config.left));
    const rendered = kubeadmConfigTemplate(generate(config.right), 'my-cluster-md-0');
    if (rendered._tag === 'Left') throw new Error(rendered.left);
    const template = parse(rendered.right) as Obj & {
      spec: { template: { spec: { files: unknown[] } } };
    };
    expect(template.kind).toBe('KubeadmConfigTemplate');
    expect(template.spec.template.spec.files.length).toBeGreaterThan(2);
    const ns = await env.namespace('overlay');
    const r = await dryRunCreate(env.kubeConfig, {
      ...template,
      metadata: { ...template.metadata, namespace: ns },
    });
    expect({ status: r.status, body: r.status === 201 ? '' : r.body }).toEqual({
      status: 201,
      body: '',
    });
  });
});
