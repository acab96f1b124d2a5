// Credentials from a ClusterConfig (core's kubeconfig loader). Certificate files are read once;
// a token file is re-read at most once a minute, as client-go does, because a projected
// service-account token is rotated under a running process. exec and auth-provider plugins
// are run by @kubernetes/client-node, imported here, on first use, and only for them.
import { readFile } from 'node:fs/promises';
import type { CredentialSource, Credentials, TlsMaterial } from '../https-transport.js';
import type { ClusterConfig, Material } from './cluster-config.js';

const TOKEN_FILE_TTL_MS = 60_000;

async function read(
  m: Material | undefined,
  what: string,
  source: string,
): Promise<Buffer | undefined> {
  if (m === undefined) return undefined;
  if ('data' in m) return m.data;
  try {
    return await readFile(m.file);
  } catch (e) {
    // The path is configuration, not a secret; the content never appears.
    throw new Error(
      `${source}: cannot read the ${what} ${m.file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

export interface ConfigCredentialOptions {
  now?: () => number;
}

export function configCredentials(
  cfg: ClusterConfig,
  opts: ConfigCredentialOptions = {},
): CredentialSource {
  const now = opts.now ?? Date.now;
  let tls: Promise<TlsMaterial> | undefined;
  let token: { value: string; readAt: number } | undefined;
  let plugin: Promise<CredentialSource> | undefined;

  const staticTls = async (): Promise<TlsMaterial> => {
    const k = cfg.clientKey;
    const [ca, cert, key] = await Promise.all([
      read(cfg.certificateAuthority, 'certificate authority', cfg.source),
      read(cfg.clientCertificate, 'client certificate', cfg.source),
      k === undefined
        ? undefined
        : 'file' in k
          ? read(k, 'client key', cfg.source)
          : k.data.reveal(),
    ]);
    return {
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      ...(cfg.insecureSkipTlsVerify ? { rejectUnauthorized: false } : {}),
      ...(cfg.tlsServerName ? { servername: cfg.tlsServerName } : {}),
    };
  };

  const bearer = async (file: string): Promise<string> => {
    if (token === undefined || now() - token.readAt >= TOKEN_FILE_TTL_MS) {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        // Keep using the last token while the file is briefly missing (kubelet swaps it).
        if (token !== undefined) return token.value;
        throw new Error(
          `${cfg.source}: cannot read the token file ${file}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        );
      }
      token = { value: text.trim(), readAt: now() };
    }
    return token.value;
  };

  return {
    server: cfg.server,
    async credentials(): Promise<Credentials> {
      const auth = cfg.auth;
      if (auth.type === 'plugin') {
        if (plugin === undefined) {
          plugin = pluginSource(auth.kubeconfig.reveal());
          plugin.catch(() => (plugin = undefined)); // a failed import or load: try again next time
        }
        return (await plugin).credentials();
      }
      if (tls === undefined) {
        tls = staticTls();
        tls.catch(() => (tls = undefined)); // a missing file may appear later: read again
      }
      const material = await tls;
      switch (auth.type) {
        case 'none':
          return { tls: material, headers: {} };
        case 'token':
          return { tls: material, headers: { Authorization: `Bearer ${auth.token.reveal()}` } };
        case 'tokenFile':
          return { tls: material, headers: { Authorization: `Bearer ${await bearer(auth.file)}` } };
        case 'basic':
          return {
            tls: material,
            headers: {
              Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password.reveal()}`).toString('base64')}`,
            },
          };
      }
    },
  };
}

/** The plugin path: client-node's KubeConfig over the one-context document. */
async function pluginSource(doc: object): Promise<CredentialSource> {
  // First, alone: where client-node cannot load on this Node, it fails saying what to install.
  await import('../client-node-guard.js');
  const [{ KubeConfig }, { clientNodeCredentials }] = await Promise.all([
    import('@kubernetes/client-node'),
    import('../client-node/credentials.js'),
  ]);
  const kc = new KubeConfig();
  kc.loadFromString(JSON.stringify(doc));
  return clientNodeCredentials(kc);
}
