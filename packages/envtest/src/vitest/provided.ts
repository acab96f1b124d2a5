/** What the global setup hands to test workers through vitest's provide/inject. */
export interface SharedControlPlane {
  /** Path of an admin kubeconfig file for this plane. */
  kubeconfigPath: string;
  /** The API server URL, `https://127.0.0.1:<port>`. */
  server: string;
  /** The API server's reported gitVersion. */
  version: string;
  /** Log file of each component by name (etcd, kube-apiserver, ...), printed when a test fails. */
  logFiles: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    noderepairEnvtest: SharedControlPlane[];
  }
}
