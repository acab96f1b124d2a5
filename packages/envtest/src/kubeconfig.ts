import { writeFileSync } from 'node:fs';
// Before client-node's module graph: fails, saying what to install, where it cannot load.
import './client-node-guard.js';
import { KubeConfig } from '@kubernetes/client-node';

/** What a kubeconfig for the test control plane is made of. */
export interface KubeconfigParams {
  /** The API server URL (https://127.0.0.1:port). */
  server: string;
  /** PEM of the CA that signed the API server's serving certificate. */
  caPem: string;
  /** Bearer token the user authenticates with. */
  token: string;
  /** User (and context) name; defaults to `envtest-admin`. */
  user?: string;
}

/** A kubeconfig document (YAML is a superset of JSON, so JSON is written). */
export function kubeconfigDocument(p: KubeconfigParams): object {
  const user = p.user ?? 'envtest-admin';
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'envtest', cluster: { server: p.server, 'certificate-authority-data': Buffer.from(p.caPem).toString('base64') } },
    ],
    users: [{ name: user, user: { token: p.token } }],
    contexts: [{ name: user === 'envtest-admin' ? 'envtest' : `envtest-${user}`, context: { cluster: 'envtest', user } }],
    'current-context': user === 'envtest-admin' ? 'envtest' : `envtest-${user}`,
  };
}

/** Writes a kubeconfig file (mode 0600, since it holds a token) for the given server and user. */
export function writeKubeconfig(path: string, p: KubeconfigParams): void {
  writeFileSync(path, JSON.stringify(kubeconfigDocument(p), null, 2), { mode: 0o600 });
}

/** Builds an in-memory KubeConfig for the given server and user, without touching any file. */
export function kubeConfigFor(p: KubeconfigParams): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(kubeconfigDocument(p)));
  return kc;
}

/** Loads a kubeconfig file into a fresh KubeConfig (never the global default). */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
