// Credentials from an injected @kubernetes/client-node KubeConfig: client-node does the hard
// part (client certs, tokens, exec/OIDC plugins, refresh). Type-only import: a caller that
// passes a KubeConfig has loaded client-node already; core never loads it for them.
import type https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { CredentialSource, Credentials } from '../https-transport.js';

export function isClientNodeKubeConfig(v: unknown): v is KubeConfig {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { applyToHTTPSOptions?: unknown }).applyToHTTPSOptions === 'function' &&
    typeof (v as { getCurrentCluster?: unknown }).getCurrentCluster === 'function'
  );
}

export function clientNodeCredentials(kubeConfig: KubeConfig): CredentialSource {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new TypeError('KubeConfig has no current cluster (set current-context)');
  return {
    server: cluster.server,
    async credentials(): Promise<Credentials> {
      const o: https.RequestOptions = {};
      await kubeConfig.applyToHTTPSOptions(o);
      const c = kubeConfig.getCurrentCluster();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(o.headers ?? {}))
        if (v !== undefined) headers[k] = String(v);
      if (o.auth) headers['Authorization'] = `Basic ${Buffer.from(o.auth).toString('base64')}`;
      return {
        tls: {
          ca: o.ca,
          cert: o.cert,
          key: o.key,
          pfx: o.pfx,
          passphrase: o.passphrase,
          rejectUnauthorized: c?.skipTLSVerify ? false : o.rejectUnauthorized,
          servername: c?.tlsServerName ?? o.servername,
        },
        headers,
      };
    },
  };
}
