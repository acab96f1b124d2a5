// What one cluster connection needs, resolved from a kubeconfig context or the in-cluster
// service account: where the apiserver is, how to trust it and how to authenticate. Plain data,
// no @kubernetes/client-node: createKubeClient builds its transport from it.
import type { Secret } from './secret.js';

/** Where a PEM (or any credential) comes from: inline data, or a file read when used. */
export type Material = { readonly data: Buffer } | { readonly file: string };

export type ClusterAuth =
  | { readonly type: 'none' }
  | { readonly type: 'token'; readonly token: Secret }
  /** Re-read on use (a projected service-account token rotates under a running process). */
  | { readonly type: 'tokenFile'; readonly file: string }
  | { readonly type: 'basic'; readonly username: string; readonly password: Secret }
  /**
   * exec or auth-provider: run by @kubernetes/client-node's KubeConfig, imported only then.
   * `kubeconfig` is the one-context document (paths made absolute) handed to it.
   */
  | {
      readonly type: 'plugin';
      readonly plugin: 'exec' | 'auth-provider';
      readonly kubeconfig: Secret<object>;
    };

export interface ClusterConfig {
  readonly kind: 'ClusterConfig';
  /** For messages: "<file> (context <name>)" or "in-cluster service account". */
  readonly source: string;
  readonly server: string;
  readonly tlsServerName?: string | undefined;
  readonly insecureSkipTlsVerify: boolean;
  readonly certificateAuthority?: Material | undefined;
  readonly clientCertificate?: Material | undefined;
  /** The client key is a secret even as a path's content: kept as Material, read when used. */
  readonly clientKey?: { readonly data: Secret<Buffer> } | { readonly file: string } | undefined;
  readonly auth: ClusterAuth;
  /** The context's namespace (or the service account's), for callers that want a default. */
  readonly namespace?: string | undefined;
}

export function isClusterConfig(v: unknown): v is ClusterConfig {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'ClusterConfig';
}
