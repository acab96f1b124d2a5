// One OpenStack client per identity Secret content (a changed Secret replaces its clients), and
// one NovaMachineProvider per client: the provider remembers the action ids Nova accepted in
// this process.
import type { RuntimeLogger } from '@noderepair/core/runtime';
import {
  createOpenStackClient,
  NovaMachineProvider,
  type CloudConfig,
  type OpenStackClient,
} from '@noderepair/openstack';
import type { Target } from './target.js';

/** The reconciler's cache of OpenStack clients; close() releases them. */
export class OpenStackClients {
  private readonly clients = new Map<string, OpenStackClient>();
  private readonly providers = new WeakMap<OpenStackClient, NovaMachineProvider>();

  constructor(
    private readonly log: RuntimeLogger,
    /** Builds the client for a cloud (tests may pass one with a fake transport). */
    private readonly create?: (cloud: CloudConfig) => OpenStackClient,
  ) {}

  /** The Nova provider of the target's cloud. */
  provider(t: Target): NovaMachineProvider {
    const c = this.clientFor(t);
    let p = this.providers.get(c);
    if (p === undefined) {
      // The client's region (the Machine's, else the identity's): see NovaMachineProvider's region.
      p = new NovaMachineProvider(c.nova, { region: c.cloud.region });
      this.providers.set(c, p);
    }
    return p;
  }

  /** Closes the cached OpenStack clients. */
  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  private clientFor(t: Target): OpenStackClient {
    let c = this.clients.get(t.cloudKey);
    if (c === undefined) {
      // The Secret changed (new resourceVersion) or first use: drop clients for the old content.
      const prefix = t.cloudKey.split('@')[0] ?? '';
      for (const [k, old] of this.clients) {
        if (k.split('@')[0] === prefix) {
          this.clients.delete(k);
          void old.close();
        }
      }
      c = (this.create ?? ((cloud) => createOpenStackClient(cloud, { logger: this.log })))(t.cloud);
      this.clients.set(t.cloudKey, c);
    }
    return c;
  }
}
