// The RebootProvider the demo's auto-repair controller uses. Reboots go through the real
// OpenStack client (Keystone token, Nova API over HTTP) — NovaRebootProvider from
// @noderepair/capo-remediation — to the FAKE Nova. Replace is not a Nova action: in a
// Cluster API cluster the MachineSet replaces the Machine. There is no Cluster API here, so
// a stand-in, named as such, does what a MachineSet would: delete the server and the Node,
// create a new server, and a new Node joins in the same zone.
import type { RebootProvider, RebootRequest, RebootResult } from '@noderepair/core';

/** What the stand-in needs to replace a machine; returns the new Node's name. */
export type ReplaceMachine = (node: string) => Promise<string>;

export class DemoRebootProvider implements RebootProvider {
  readonly name: string;
  /** Replacements done, by action id: the port's contract is one execution per id. */
  readonly #replaced = new Map<string, RebootResult>();
  readonly #pending: Promise<unknown>[] = [];

  constructor(
    private readonly nova: RebootProvider,
    private readonly replace: ReplaceMachine,
    private readonly delayReplaceMs = 1000,
  ) {
    this.name = `${nova.name}+machineset-stand-in`;
  }

  async execute(req: RebootRequest, signal?: AbortSignal): Promise<RebootResult> {
    if (req.action !== 'Replace') return this.nova.execute(req, signal);
    const done = this.#replaced.get(req.actionId);
    if (done) return done;
    const result: RebootResult = {
      result: 'Succeeded',
      message: `machine of ${req.node} handed to the MachineSet stand-in for replacement`,
    };
    this.#replaced.set(req.actionId, result);
    // Like Cluster API, the replacement happens after the request is accepted, so the
    // controller records its outcome on the Node before that Node is deleted.
    const p = new Promise((r) => setTimeout(r, this.delayReplaceMs)).then(() =>
      this.replace(req.node),
    );
    this.#pending.push(p.catch(() => undefined));
    return result;
  }

  /** Waits for replacements still under way (at shutdown). */
  async settle(): Promise<void> {
    await Promise.all(this.#pending);
  }
}
