// Least privilege: the controllers under test authenticate as the ServiceAccount the shipped
// manifests define (packages/capo-remediation/config/rbac/*.yaml, applied verbatim), with a
// token from the TokenRequest API, never as envtest's admin.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubernetesObjectApi, type KubeConfig } from '@kubernetes/client-node';
import { writeKubeconfig } from '@noderepair/envtest';
import YAML from 'yaml';
import { repoRoot } from './controller-process.js';

export const RBAC_DIR = join(repoRoot, 'packages', 'capo-remediation', 'config', 'rbac');

export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

/** Every object of the shipped RBAC kustomization (ServiceAccount, roles, bindings). */
export function shippedRbac(): ManifestObject[] {
  return readdirSync(RBAC_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort()
    .flatMap((f) =>
      YAML.parseAllDocuments(readFileSync(join(RBAC_DIR, f), 'utf8'))
        .map((d) => d.toJS() as ManifestObject | null)
        .filter((o): o is ManifestObject => o !== null && typeof o === 'object'),
    );
}

export async function applyObjects(
  kc: KubeConfig,
  objects: readonly ManifestObject[],
): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  for (const o of objects) {
    try {
      await api.create(o);
    } catch (e) {
      if ((e as { code?: number }).code !== 409) throw e;
    }
  }
}

export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  await applyObjects(kc, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]);
}

/** A token for a ServiceAccount through the TokenRequest API (as the kubelet projects it). */
export async function serviceAccountToken(
  kc: KubeConfig,
  namespace: string,
  name: string,
): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const tr = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: [], expirationSeconds: 7200 },
    },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  return token;
}

/** A kubeconfig file that authenticates with `token` against `server`. */
export function tokenKubeconfig(
  path: string,
  server: string,
  caPem: string,
  token: string,
  user: string,
): string {
  writeKubeconfig(path, { server, caPem, token, user });
  return path;
}
