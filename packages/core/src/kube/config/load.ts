// Finding and reading kubeconfig files, the way controller-runtime's GetConfig does: the
// explicit file (--kubeconfig), else $KUBECONFIG (a path list, merged: the first file to
// define a name wins), else the in-cluster service account, else ~/.kube/config.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import * as E from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { decodeStrict } from '../../codec/strict.js';
import type { ClusterConfig } from './cluster-config.js';
import { KubeconfigCodec, type KubeconfigDoc } from './codec.js';
import { selectContext } from './select.js';

/** Where Kubernetes mounts a pod's service-account token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A kubeconfig that cannot be used; the message names the file and field, never a value. */
export class KubeConfigError extends Error {
  /** Always `KubeConfigError`. */
  override readonly name = 'KubeConfigError';
}

/** Options of parseKubeConfig. */
export interface ParseKubeConfigOptions {
  /** For messages: the file name, or e.g. "Secret ns/name". */
  source?: string;
  /** Relative certificate / key / token paths are resolved against it (the file's directory). */
  dir?: string;
  /** Default: the document's current-context. */
  context?: string;
}

function parseDoc(text: string, source: string, dir?: string): E.Either<string, KubeconfigDoc> {
  let raw: unknown;
  try {
    raw = YAML.parse(text);
  } catch (e) {
    // The parser's message quotes the offending line, which may hold a token: position only.
    const pos = (e as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    return E.left(
      `${source}: not valid YAML${pos ? ` (line ${pos.line}, column ${pos.col})` : ''}`,
    );
  }
  const decoded = decodeStrict(KubeconfigCodec, raw ?? {}, 'kubeconfig');
  if (E.isLeft(decoded)) return E.left(`${source}: ${decoded.left.join('; ')}`);
  const d = decoded.right;
  return E.right({
    clusters: (d.clusters ?? []).map((c) => ({ ...c, ...(dir ? { dir } : {}) })),
    users: (d.users ?? []).map((u) => ({ ...u, ...(dir ? { dir } : {}) })),
    contexts: d.contexts ?? [],
    currentContext: d['current-context'] || undefined,
  });
}

/** clientcmd's merge: the first document to define a name (or current-context) wins. */
export function mergeDocs(docs: readonly KubeconfigDoc[]): KubeconfigDoc {
  const first = <T extends { name: string }>(lists: (readonly T[])[]): T[] => {
    const seen = new Set<string>();
    return lists.flat().filter((x) => !seen.has(x.name) && !!seen.add(x.name));
  };
  return {
    clusters: first(docs.map((d) => d.clusters)),
    users: first(docs.map((d) => d.users)),
    contexts: first(docs.map((d) => d.contexts)),
    currentContext: docs.find((d) => d.currentContext !== undefined)?.currentContext,
  };
}

/** Pure: one kubeconfig document's text -> the ClusterConfig of its (current) context. */
export function parseKubeConfig(
  text: string,
  opts: ParseKubeConfigOptions = {},
): E.Either<string, ClusterConfig> {
  const source = opts.source ?? 'kubeconfig';
  const doc = parseDoc(text, source, opts.dir);
  return E.isLeft(doc) ? doc : selectContext(doc.right, source, opts.context);
}

/**
 * Options of loadKubeConfig; without any, the lookup is $KUBECONFIG, then the in-cluster service
 * account, then ~/.kube/config.
 */
export interface LoadKubeConfigOptions {
  /** An explicit kubeconfig file (--kubeconfig): only this file is read. */
  path?: string | undefined;
  /** Default: current-context. */
  context?: string | undefined;
  /** Where KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT and HOME are read; default process.env. */
  env?: Record<string, string | undefined>;
  /** Default /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KubeConfigError(
      `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

async function fromFiles(paths: string[], context?: string): Promise<ClusterConfig> {
  const docs: KubeconfigDoc[] = [];
  const read: string[] = [];
  for (const p of paths) {
    const text = await readIfExists(p);
    if (text === undefined) continue;
    const doc = parseDoc(text, p, dirname(p));
    if (E.isLeft(doc)) throw new KubeConfigError(doc.left);
    docs.push(doc.right);
    read.push(p);
  }
  if (docs.length === 0)
    throw new KubeConfigError(`no kubeconfig file found (${paths.join(', ')})`);
  const r = selectContext(mergeDocs(docs), read.join(delimiter), context);
  if (E.isLeft(r)) throw new KubeConfigError(r.left);
  return r.right;
}

/** The in-cluster service account's config (token file re-read as it rotates). */
export async function inClusterConfig(
  env: Record<string, string | undefined> = process.env,
  dir = SERVICE_ACCOUNT_DIR,
): Promise<ClusterConfig> {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port)
    throw new KubeConfigError(
      'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set',
    );
  const tokenFile = join(dir, 'token');
  if ((await readIfExists(tokenFile)) === undefined)
    throw new KubeConfigError(`in-cluster: ${tokenFile} does not exist (no service account token)`);
  const namespace = (await readIfExists(join(dir, 'namespace')))?.trim();
  return {
    kind: 'ClusterConfig',
    source: 'in-cluster service account',
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    insecureSkipTlsVerify: false,
    certificateAuthority: { file: join(dir, 'ca.crt') },
    auth: { type: 'tokenFile', file: tokenFile },
    ...(namespace ? { namespace } : {}),
  };
}

/**
 * The ClusterConfig to run with, without @kubernetes/client-node (it is imported later only
 * if the user's entry runs an exec or auth-provider plugin). Throws KubeConfigError.
 */
export async function loadKubeConfig(opts: LoadKubeConfigOptions = {}): Promise<ClusterConfig> {
  const env = opts.env ?? process.env;
  if (opts.path !== undefined) {
    if ((await readIfExists(opts.path)) === undefined)
      throw new KubeConfigError(`${opts.path}: no such file`);
    return fromFiles([opts.path], opts.context);
  }
  const list = env['KUBECONFIG']?.split(delimiter).filter((p) => p !== '');
  if (list !== undefined && list.length > 0) return fromFiles(list, opts.context);
  if (
    env['KUBERNETES_SERVICE_HOST'] &&
    env['KUBERNETES_SERVICE_PORT'] &&
    opts.context === undefined
  )
    return inClusterConfig(env, opts.serviceAccountDir);
  const home = env['HOME'] ?? homedir();
  return fromFiles([join(home, '.kube', 'config')], opts.context);
}
