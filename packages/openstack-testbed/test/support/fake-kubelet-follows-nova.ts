// THE FAKE PART of the remediation e2e, and the only one. The testbed's Nova runs the fake
// virt driver: a server has no guest OS, so nothing would start a kubelet again after Nova
// rebooted it. This stands in for that guest. It watches Nova's own records of the server and,
// only once Nova has finished a reboot (a new `reboot` in os-instance-actions whose
// compute_reboot_instance event ended with "Success", and the server ACTIVE with no task in
// progress), reboots the fake kubelet: heartbeats resume with a new bootID. It never calls a
// Nova action itself, so every reboot it reacts to was requested by the controller.
import type { FakeKubelet } from '@noderepair/envtest';
import type { InstanceActionEvent, OpenStackTestbed } from '../../src/index.js';

export interface FollowOptions {
  /**
   * Whether the guest comes back from the server's n-th completed reboot (1 = the first
   * one seen after start). Default: always. `false` is a guest that stays down after that
   * reboot, e.g. one a SOFT reboot cannot fix.
   */
  readonly comesBackAfter?: (n: number) => boolean;
  /** How long the kubelet stays silent after Nova's reboot (the boot). */
  readonly bootMs?: number;
  readonly pollMs?: number;
}

export interface FollowedReboot {
  readonly n: number;
  readonly requestId: string;
  readonly startTime: string;
  /** Nova's compute_reboot_instance event for it. */
  readonly event: InstanceActionEvent;
  readonly kubeletBroughtBack: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class FakeKubeletFollowsNova {
  /** The completed reboots seen in Nova's records, in Nova's order. */
  readonly reboots: FollowedReboot[] = [];
  /** The last error of a poll (polling goes on; a test may print it). */
  lastError: Error | undefined;
  #stopped = false;
  #loop: Promise<void> = Promise.resolve();

  private constructor(
    private readonly tb: OpenStackTestbed,
    private readonly serverId: string,
    private readonly kubelet: FakeKubelet,
    private readonly opts: FollowOptions,
  ) {}

  /** Starts watching; reboots already in Nova's records are not followed. */
  static async start(
    tb: OpenStackTestbed,
    serverId: string,
    kubelet: FakeKubelet,
    opts: FollowOptions = {},
  ): Promise<FakeKubeletFollowsNova> {
    const f = new FakeKubeletFollowsNova(tb, serverId, kubelet, opts);
    const before = (await tb.novaActions(serverId)).filter((a) => a.action === 'reboot');
    const seen = new Set(before.map((a) => a.requestId));
    f.#loop = f.run(seen);
    return f;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  private async run(seen: Set<string>): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.poll(seen);
        this.lastError = undefined;
      } catch (e) {
        this.lastError = e as Error;
      }
      await sleep(this.opts.pollMs ?? 500);
    }
  }

  private async poll(seen: Set<string>): Promise<void> {
    const fresh = (await this.tb.novaActions(this.serverId)).filter(
      (a) => a.action === 'reboot' && !seen.has(a.requestId),
    );
    // Oldest first, one at a time: a reboot still running holds back the ones after it.
    for (const a of fresh) {
      const events = await this.tb.novaActionEvents(this.serverId, a.requestId);
      const event = events.find((e) => e.event === 'compute_reboot_instance');
      if (event?.result === null || event === undefined) return;
      const server = await this.tb.serverState(this.serverId);
      if (server.taskState !== null) return;
      seen.add(a.requestId);
      const n = this.reboots.length + 1;
      const back =
        event.result === 'Success' &&
        server.status === 'ACTIVE' &&
        (this.opts.comesBackAfter?.(n) ?? true);
      this.reboots.push({
        n,
        requestId: a.requestId,
        startTime: a.startTime,
        event,
        kubeletBroughtBack: back,
      });
      if (back) await this.kubelet.reboot(this.opts.bootMs ?? 1_000);
    }
  }
}
