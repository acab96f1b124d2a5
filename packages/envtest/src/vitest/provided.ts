/** What the global setup hands to test workers through vitest's provide/inject. */
export interface SharedControlPlane {
  kubeconfigPath: string;
  server: string;
  version: string;
  logFiles: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    noderepairEnvtest: SharedControlPlane[];
  }
}
