// The moment an object first shows up in a watch, keyed by what it is about. Both sides are
// timed the same way, on this process's clock: our Events (reason RepairStarted, about a
// Node) and Cluster API's OpenStackRemediations (named after, and owned by, the Machine;
// Machines are named after their Nodes here). The watch is opened before anything happens
// and restarted from the last resourceVersion if the server ends it.
import type { KubeClient, KubeObject, ResourceType, WatchOptions } from '@noderepair/core/kube';

export class FirstSeen {
  readonly seen = new Map<string, number>();
  private readonly ac = new AbortController();
  private loop: Promise<void> | undefined;
  error: Error | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly rt: ResourceType,
    private readonly opts: Omit<WatchOptions, 'signal' | 'resourceVersion'>,
    private readonly keyOf: (o: KubeObject) => string | undefined,
  ) {}

  /** Lists once for the current resourceVersion, then watches from it (only new objects count). */
  async start(): Promise<void> {
    const list = await this.client.list(this.rt, { ...this.opts, limit: 1 });
    let rv = list.metadata.resourceVersion;
    const run = async (): Promise<void> => {
      while (!this.ac.signal.aborted) {
        try {
          for await (const ev of this.client.watch<KubeObject>(this.rt, {
            ...this.opts,
            resourceVersion: rv,
            allowWatchBookmarks: true,
            timeoutSeconds: 300,
            signal: this.ac.signal,
          })) {
            if (ev.type === 'ERROR') throw ev.error;
            rv = ev.object.metadata?.resourceVersion ?? rv;
            if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
            const key = this.keyOf(ev.object);
            if (key !== undefined && !this.seen.has(key)) this.seen.set(key, Date.now());
          }
        } catch (e) {
          if (this.ac.signal.aborted) return;
          this.error = e as Error;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    };
    this.loop = run();
  }

  async stop(): Promise<void> {
    this.ac.abort();
    await this.loop;
  }
}
