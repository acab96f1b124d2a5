// The real kube-apiserver accepts our generated CRDs, applies the schema's defaults, and
// rejects every violation the schema derives (the same ones the codec rejects), naming the field.
import {
  ApiException,
  CustomObjectsApi,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { installCRDs } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import * as E from 'fp-ts/lib/Either.js';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { installObjects } from '../manifests/index.js';
import {
  DEFAULT_STEPS,
  exampleRemediation,
  exampleRemediationTemplate,
  GROUP,
  openStackRemediationNode,
  openStackRemediationTemplateNode,
  OpenStackRemediationCodec,
  VERSION,
  violations,
} from './index.js';

const env = useControlPlane();
const crdDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'config', 'crd');

function bodyText(e: unknown): string {
  if (e instanceof ApiException)
    return typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
  return String(e);
}

async function rejected(p: Promise<unknown>): Promise<{ code: number; text: string }> {
  try {
    await p;
  } catch (e) {
    return { code: e instanceof ApiException ? e.code : -1, text: bodyText(e) };
  }
  return { code: 0, text: 'accepted' };
}

describe('OpenStackRemediation CRDs on a real kube-apiserver', () => {
  let api: CustomObjectsApi;
  let ns: string;

  beforeAll(async () => {
    await installCRDs(env.kubeConfig, [
      join(crdDir, `${GROUP}_openstackremediationtemplates.yaml`),
      join(crdDir, `${GROUP}_openstackremediations.yaml`),
    ]);
    api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    ns = await env.namespace('osr');
  });

  const create = (plural: string, body: object) =>
    api.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural,
      body,
    });

  it('serves both kinds with their short names and the status subresource', async () => {
    const res = await api.getAPIResources({ group: GROUP, version: VERSION });
    const byName = Object.fromEntries(res.resources.map((r) => [r.name, r]));
    expect(byName['openstackremediations']?.shortNames).toEqual(['osr']);
    expect(byName['openstackremediationtemplates']?.shortNames).toEqual(['osrt']);
    expect(byName['openstackremediations/status']).toBeDefined();
    expect(byName['openstackremediationtemplates/status']).toBeUndefined();
  });

  it('applies the defaults: an empty template spec becomes the default ladder', async () => {
    const created = (await create('openstackremediationtemplates', {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'OpenStackRemediationTemplate',
      metadata: { name: 'defaults' },
      spec: { template: {} },
    })) as { spec: { template: { spec: unknown } } };
    expect(created.spec.template.spec).toEqual({
      steps: DEFAULT_STEPS,
      drain: { enabled: true, timeoutSeconds: 300, outOfServiceTaint: true },
      minHealthySeconds: 60,
    });
  });

  it('the apiserver and the codec default identically', async () => {
    const body = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'OpenStackRemediation',
      metadata: { name: 'partial' },
      spec: { steps: [{ type: 'HardReboot' }], drain: { enabled: false } },
    };
    const created = (await create('openstackremediations', body)) as { spec: unknown };
    const decoded = OpenStackRemediationCodec.decode(body);
    expect(E.isRight(decoded) && decoded.right.spec).toEqual(created.spec);
  });

  it('accepts the complete examples unchanged', async () => {
    const t = exampleRemediationTemplate('complete', ns);
    const created = (await create('openstackremediationtemplates', t)) as { spec: unknown };
    expect(created.spec).toEqual(t.spec);
    const r = exampleRemediation('complete', ns);
    const { status, ...withoutStatus } = r;
    const obj = (await create('openstackremediations', withoutStatus)) as {
      metadata: { resourceVersion: string };
    };
    const updated = (await api.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: 'openstackremediations',
      name: 'complete',
      body: {
        ...withoutStatus,
        metadata: { ...withoutStatus.metadata, resourceVersion: obj.metadata.resourceVersion },
        status,
      },
    })) as { status: unknown };
    expect(updated.status).toEqual(status);
  });

  it('accepts the template from examples/capi-openstack', async () => {
    const file = join(
      crdDir,
      '..',
      '..',
      '..',
      '..',
      'examples',
      'capi-openstack',
      'openstackremediationtemplate.yaml',
    );
    const t = parse(readFileSync(file, 'utf8')) as {
      metadata: { namespace?: string };
      spec: unknown;
    };
    const created = (await create('openstackremediationtemplates', {
      ...t,
      metadata: { ...t.metadata, namespace: ns },
    })) as { spec: unknown };
    expect(created.spec).toEqual(t.spec);
  });

  it('prints the printer columns as kubectl would (Table)', async () => {
    const opts: https.RequestOptions = {};
    await env.kubeConfig.applyToHTTPSOptions(opts);
    const url = new URL(
      `${env.server}/apis/${GROUP}/${VERSION}/namespaces/${ns}/openstackremediations/complete`,
    );
    const table = await new Promise<{
      columnDefinitions: Array<{ name: string }>;
      rows: Array<{ cells: unknown[] }>;
    }>((resolve, reject) => {
      const req = https.get(
        url,
        {
          ...opts,
          headers: { ...opts.headers, Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(JSON.parse(body))
              : reject(new Error(`${res.statusCode}: ${body}`)),
          );
        },
      );
      req.on('error', reject);
    });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Phase',
      'Step',
      'Retries',
      'Last Remediated',
      'Server',
      'Age',
    ]);
    expect(table.rows[0]?.cells.slice(0, 4)).toEqual(['complete', 'Waiting', 1, 1]);
  });

  it('rejects every spec violation, naming the field', async () => {
    const skipTop = (p: string) =>
      p === 'apiVersion' || p === 'kind' || p === 'metadata' || p.startsWith('status');
    const cases = [
      ...violations(
        openStackRemediationTemplateNode.openAPI(),
        exampleRemediationTemplate('x', ns),
        skipTop,
      ).map((v) => ({ plural: 'openstackremediationtemplates', v })),
      ...violations(openStackRemediationNode.openAPI(), exampleRemediation('x', ns), skipTop).map(
        (v) => ({ plural: 'openstackremediations', v }),
      ),
    ];
    expect(cases.length).toBeGreaterThan(30);
    const wrong: string[] = [];
    let i = 0;
    for (const { plural, v } of cases) {
      const body = structuredClone(v.value) as { metadata: { name: string }; status?: unknown };
      body.metadata.name = `bad-${i++}`;
      delete body.status;
      const r = await rejected(create(plural, body));
      if (r.code !== 422 || !r.text.includes(v.path))
        wrong.push(`${plural} ${v.path} (${v.constraint}): ${r.code} ${r.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('rejects every status violation on the status subresource, naming the field', async () => {
    const { status, ...base } = exampleRemediation('status-check', ns);
    await create('openstackremediations', base);
    const vs = violations(
      openStackRemediationNode.openAPI(),
      { ...base, status },
      (p) => !p.startsWith('status.'),
    );
    expect(vs.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const v of vs) {
      const current = (await api.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: 'openstackremediations',
        name: 'status-check',
      })) as {
        metadata: { resourceVersion: string };
      };
      const body = structuredClone(v.value) as { metadata: Record<string, unknown> };
      body.metadata = { ...body.metadata, resourceVersion: current.metadata.resourceVersion };
      const r = await rejected(
        api.replaceNamespacedCustomObjectStatus({
          group: GROUP,
          version: VERSION,
          namespace: ns,
          plural: 'openstackremediations',
          name: 'status-check',
          body,
        }),
      );
      if (r.code !== 422 || !r.text.includes(v.path))
        wrong.push(`${v.path} (${v.constraint}): ${r.code} ${r.text.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('enforces the Rebuild/imageRef CEL rule', async () => {
    const r = await rejected(
      create('openstackremediations', {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'OpenStackRemediation',
        metadata: { name: 'cel' },
        spec: { steps: [{ type: 'Rebuild' }] },
      }),
    );
    expect(r.code).toBe(422);
    expect(r.text).toContain('spec.steps[0].imageRef');
    expect(r.text).toContain('imageRef is required for Rebuild');
  });

  it('the generated RBAC, Deployment and Service pass server-side validation (dry run)', async () => {
    const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const all = installObjects() as KubernetesObject[];
    const nsObj = all.find((o) => o.kind === 'Namespace') as KubernetesObject;
    await objects.create(nsObj).catch((e: unknown) => {
      if (!(e instanceof ApiException && e.code === 409)) throw e;
    });
    const failures: string[] = [];
    for (const o of all.filter(
      (x) => x.kind !== 'CustomResourceDefinition' && x.kind !== 'Namespace',
    )) {
      const r = await rejected(objects.create(o, undefined, 'All'));
      if (r.code !== 0)
        failures.push(`${o.kind} ${o.metadata?.name}: ${r.code} ${r.text.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  });
});
