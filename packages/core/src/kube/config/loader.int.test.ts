// Core's kubeconfig loader against a real kube-apiserver: envtest's own kubeconfig file, the
// in-cluster layout (token file + ca.crt) pointed at it, and an exec plugin (a real process
// run by @kubernetes/client-node, imported only for it).
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKubeClient } from '../client-node/index.js';
import { UnauthorizedError } from '../errors.js';
import { ConfigMapResource, NamespaceResource } from '../resource.js';
import type { KubeObject } from '../object.js';
import { inClusterConfig, loadKubeConfig } from './load.js';

const env = useControlPlane();
const dir = mkdtempSync(join(tmpdir(), 'loader-int-'));
const clients: { close(): void }[] = [];
afterAll(() => clients.forEach((c) => c.close()));

interface EnvtestKubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}
const envtestDoc = () => YAML.parse(readFileSync(env.kubeconfigPath, 'utf8')) as EnvtestKubeconfig;

async function roundTrip(client: ReturnType<typeof createKubeClient>): Promise<void> {
  const ns = await env.namespace('loader');
  const name = env.unique('cm');
  await client.create(ConfigMapResource, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
    data: { a: '1' },
  } as KubeObject);
  const got = await client.get<KubeObject & { data?: Record<string, string> }>(
    ConfigMapResource,
    name,
    {
      namespace: ns,
    },
  );
  expect(got.data).toEqual({ a: '1' });
}

describe('loadKubeConfig against envtest', () => {
  it("connects with envtest's kubeconfig file (CA data + token)", async () => {
    const cfg = await loadKubeConfig({ path: env.kubeconfigPath, env: {} });
    expect(cfg.server).toBe(env.server);
    const client = createKubeClient(cfg);
    clients.push(client);
    await roundTrip(client);
  });

  it('connects as a Pod would: KUBERNETES_SERVICE_HOST/PORT, token file and ca.crt', async () => {
    const d = envtestDoc();
    const url = new URL(d.clusters[0]!.cluster.server);
    const sa = mkdtempSync(join(dir, 'sa-'));
    writeFileSync(join(sa, 'token'), d.users[0]!.user.token);
    writeFileSync(
      join(sa, 'ca.crt'),
      Buffer.from(d.clusters[0]!.cluster['certificate-authority-data'], 'base64'),
    );
    writeFileSync(join(sa, 'namespace'), 'default');
    const cfg = await inClusterConfig(
      { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port },
      sa,
    );
    const client = createKubeClient(cfg);
    clients.push(client);
    await roundTrip(client);
  });

  it('runs an exec plugin through client-node, loaded on first use', async () => {
    const d = envtestDoc();
    const plugin = join(dir, 'credential-plugin.sh');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: d.users[0]!.user.token },
    };
    writeFileSync(plugin, `#!/bin/sh\ncat <<'JSON'\n${JSON.stringify(credential)}\nJSON\n`);
    chmodSync(plugin, 0o700);
    const path = join(dir, 'exec-kubeconfig');
    writeFileSync(
      path,
      YAML.stringify({
        clusters: [{ name: 'envtest', cluster: d.clusters[0]!.cluster }],
        users: [
          {
            name: 'plugin',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: plugin,
                interactiveMode: 'Never',
              },
            },
          },
        ],
        contexts: [{ name: 'p', context: { cluster: 'envtest', user: 'plugin' } }],
        'current-context': 'p',
      }),
    );
    const cfg = await loadKubeConfig({ path, env: {} });
    expect(cfg.auth.type).toBe('plugin');
    const client = createKubeClient(cfg);
    clients.push(client);
    await roundTrip(client);
  });

  it('a wrong token is an UnauthorizedError that does not quote it', async () => {
    const d = envtestDoc();
    const path = join(dir, 'wrong-token');
    writeFileSync(
      path,
      YAML.stringify({
        clusters: [{ name: 'envtest', cluster: d.clusters[0]!.cluster }],
        users: [{ name: 'u', user: { token: 'wrong-token-5c1d' } }],
        contexts: [{ name: 'x', context: { cluster: 'envtest', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const client = createKubeClient(await loadKubeConfig({ path, env: {} }));
    clients.push(client);
    const e = await client.get(NamespaceResource, 'default').catch((err: unknown) => err);
    expect(e).toBeInstanceOf(UnauthorizedError);
    expect(String(e)).not.toContain('wrong-token-5c1d');
  });
});
