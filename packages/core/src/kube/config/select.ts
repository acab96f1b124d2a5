// Pure: one context of a (merged) kubeconfig -> the ClusterConfig a client needs. Every message
// names the field and where it is, never its value (tokens, keys, passwords).
import { isAbsolute, resolve } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import type { ClusterConfig, ClusterAuth, Material } from './cluster-config.js';
import type { KubeconfigDoc, KubeconfigUser } from './codec.js';
import { Secret } from './secret.js';

/** Fields clientcmd knows that this loader does not implement (they would be ignored). */
const UNSUPPORTED_CLUSTER = ['proxy-url'] as const;
const UNSUPPORTED_USER = ['as', 'as-uid', 'as-groups', 'as-user-extra'] as const;

function absolute(path: string, dir: string | undefined): string {
  return isAbsolute(path) || dir === undefined ? path : resolve(dir, path);
}

function base64(where: string, field: string, value: string): E.Either<string, Buffer> {
  const clean = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1)
    return E.left(`${where}.${field}: expected base64 data`);
  return E.right(Buffer.from(clean, 'base64'));
}

function material(
  where: string,
  dataField: string,
  data: string | undefined,
  fileField: string,
  file: string | undefined,
  dir: string | undefined,
): E.Either<string, Material | undefined> {
  if (data !== undefined && file !== undefined)
    return E.left(`${where}: set one of ${dataField} and ${fileField}, not both`);
  if (data !== undefined)
    return E.map((b: Buffer) => ({ data: b }))(base64(where, dataField, data));
  if (file !== undefined) return E.right({ file: absolute(file, dir) });
  return E.right(undefined);
}

function authOf(
  where: string,
  u: KubeconfigUser,
  dir: string | undefined,
  pluginDoc: () => object,
): E.Either<string, ClusterAuth> {
  const methods = [
    u.token !== undefined || u.tokenFile !== undefined ? 'token' : undefined,
    u.username !== undefined || u.password !== undefined ? 'username/password' : undefined,
    u.exec !== undefined ? 'exec' : undefined,
    u['auth-provider'] !== undefined ? 'auth-provider' : undefined,
  ].filter((m): m is string => m !== undefined);
  if (methods.length > 1)
    return E.left(
      `${where}: more than one authentication method (${methods.join(', ')}); keep one`,
    );
  if (u.exec !== undefined)
    return E.right({ type: 'plugin', plugin: 'exec', kubeconfig: new Secret(pluginDoc()) });
  if (u['auth-provider'] !== undefined)
    return E.right({
      type: 'plugin',
      plugin: 'auth-provider',
      kubeconfig: new Secret(pluginDoc()),
    });
  // clientcmd: an inline token wins over tokenFile.
  if (u.token !== undefined) return E.right({ type: 'token', token: new Secret(u.token) });
  if (u.tokenFile !== undefined)
    return E.right({ type: 'tokenFile', file: absolute(u.tokenFile, dir) });
  if (u.username !== undefined || u.password !== undefined) {
    if (u.username === undefined || u.password === undefined)
      return E.left(`${where}: username and password go together`);
    return E.right({ type: 'basic', username: u.username, password: new Secret(u.password) });
  }
  return E.right({ type: 'none' });
}

function serverUrl(where: string, server: string | undefined): E.Either<string, string> {
  if (server === undefined || server === '') return E.left(`${where}.server: is required`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return E.left(`${where}.server: expected an http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return E.left(`${where}.server: expected an http(s) URL`);
  if (url.username || url.password)
    return E.left(`${where}.server: credentials in the URL are not allowed; use the user entry`);
  return E.right(server);
}

/**
 * The ClusterConfig of `contextName` (default: current-context) in `doc`, read from `source`
 * (a file list, for messages).
 */
export function selectContext(
  doc: KubeconfigDoc,
  source: string,
  contextName?: string,
): E.Either<string, ClusterConfig> {
  const name = contextName ?? doc.currentContext;
  if (name === undefined || name === '')
    return E.left(`${source}: no current-context (and no context was asked for)`);
  const ctx = doc.contexts.find((c) => c.name === name);
  if (ctx === undefined)
    return E.left(
      `${source}: context "${name}" not found (contexts: ${doc.contexts.map((c) => c.name).join(', ') || 'none'})`,
    );
  const cl = doc.clusters.find((c) => c.name === ctx.context.cluster);
  if (cl === undefined)
    return E.left(
      `${source}: context "${name}" names cluster "${ctx.context.cluster}", which is not defined`,
    );
  const us = doc.users.find((u) => u.name === ctx.context.user);
  if (us === undefined)
    return E.left(
      `${source}: context "${name}" names user "${ctx.context.user}", which is not defined`,
    );
  const cw = `clusters["${cl.name}"].cluster`;
  const uw = `users["${us.name}"].user`;
  const c = cl.cluster;
  const u = us.user;
  for (const f of UNSUPPORTED_CLUSTER)
    if (c[f] !== undefined)
      return E.left(`${source}: ${cw}.${f}: not supported by noderepair's kubeconfig loader`);
  for (const f of UNSUPPORTED_USER)
    if (u[f] !== undefined)
      return E.left(`${source}: ${uw}.${f}: not supported by noderepair's kubeconfig loader`);
  const pluginDoc = () => pluginKubeconfig(doc, name, cl, us);
  const server = serverUrl(`${source}: ${cw}`, c.server);
  if (E.isLeft(server)) return server;
  const ca = material(
    `${source}: ${cw}`,
    'certificate-authority-data',
    c['certificate-authority-data'],
    'certificate-authority',
    c['certificate-authority'],
    cl.dir,
  );
  if (E.isLeft(ca)) return ca;
  const insecure = c['insecure-skip-tls-verify'] === true;
  if (insecure && ca.right !== undefined)
    return E.left(
      `${source}: ${cw}: insecure-skip-tls-verify with a certificate authority is contradictory; keep one`,
    );
  const cert = material(
    `${source}: ${uw}`,
    'client-certificate-data',
    u['client-certificate-data'],
    'client-certificate',
    u['client-certificate'],
    us.dir,
  );
  if (E.isLeft(cert)) return cert;
  const key = material(
    `${source}: ${uw}`,
    'client-key-data',
    u['client-key-data'],
    'client-key',
    u['client-key'],
    us.dir,
  );
  if (E.isLeft(key)) return key;
  if ((cert.right === undefined) !== (key.right === undefined))
    return E.left(`${source}: ${uw}: a client certificate and a client key go together`);
  const auth = authOf(`${source}: ${uw}`, u, us.dir, pluginDoc);
  if (E.isLeft(auth)) return auth;
  const k = key.right;
  return E.right({
    kind: 'ClusterConfig',
    source: `${source} (context ${name})`,
    server: server.right,
    tlsServerName: c['tls-server-name'],
    insecureSkipTlsVerify: insecure,
    certificateAuthority: ca.right,
    clientCertificate: cert.right,
    clientKey: k === undefined ? undefined : 'data' in k ? { data: new Secret(k.data) } : k,
    auth: auth.right,
    namespace: ctx.context.namespace,
  });
}

/** The one context as a kubeconfig for client-node, every file path made absolute. */
function pluginKubeconfig(
  doc: KubeconfigDoc,
  context: string,
  cl: KubeconfigDoc['clusters'][number],
  us: KubeconfigDoc['users'][number],
): object {
  const fix = <T extends Record<string, unknown>>(o: T, keys: string[], dir?: string): T => {
    const out: Record<string, unknown> = { ...o };
    for (const k of keys) if (typeof out[k] === 'string') out[k] = absolute(out[k] as string, dir);
    return out as T;
  };
  const ctx = doc.contexts.find((c) => c.name === context)!;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cl.name, cluster: fix(cl.cluster, ['certificate-authority'], cl.dir) }],
    users: [
      {
        name: us.name,
        user: fix(us.user, ['client-certificate', 'client-key', 'tokenFile'], us.dir),
      },
    ],
    contexts: [{ name: context, context: ctx.context }],
    'current-context': context,
  };
}
