// What one cluster connection needs, resolved from a kubeconfig context or the in-cluster
// service account: where the apiserver is, how to trust it and how to authenticate. Plain data,
// no @kubernetes/client-node: createKubeClient builds its transport from it.
import type { Secret } from './secret.js';

/** Where a PEM (or any credential) comes from: inline data, or a file read when used. */
export type Material = { readonly data: Buffer } | { readonly file: string };

/**
 * How the client authenticates to the apiserver; credentials are Secrets, so they never print in
 * logs or errors.
 */
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

/**
 * Everything one cluster connection needs: the apiserver's address, how to trust it and how to
 * authenticate. Plain data, resolved from a kubeconfig context or the in-cluster service account.
 */
export interface ClusterConfig {
  /** Marks the object as a ClusterConfig (see isClusterConfig). */
  readonly kind: 'ClusterConfig';
  /** For messages: "<file> (context <name>)" or "in-cluster service account". */
  readonly source: string;
  /** The apiserver URL, e.g. `https://10.0.0.1:6443`. */
  readonly server: string;
  /** Name to verify the server certificate against when it differs from the URL's host. */
  readonly tlsServerName?: string | undefined;
  /** Skips verifying the server certificate; only for test clusters. */
  readonly insecureSkipTlsVerify: boolean;
  /** CA bundle (PEM) that signs the server certificate; unset trusts the system CAs. */
  readonly certificateAuthority?: Material | undefined;
  /** Client certificate (PEM) for mutual TLS; used together with the client key. */
  readonly clientCertificate?: Material | undefined;
  /** The client key is a secret even as a path's content: kept as Material, read when used. */
  readonly clientKey?: { readonly data: Secret<Buffer> } | { readonly file: string } | undefined;
  /** How requests authenticate, in addition to any client certificate. */
  readonly auth: ClusterAuth;
  /** The context's namespace (or the service account's), for callers that want a default. */
  readonly namespace?: string | undefined;
}

/**
 * True when the value is a ClusterConfig (has `kind: 'ClusterConfig'`), as opposed to a client or
 * kubeconfig path.
 */
export function isClusterConfig(v: unknown): v is ClusterConfig {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'ClusterConfig';
}
