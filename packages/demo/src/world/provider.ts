// The MachineProvider the demo's auto-repair controller uses: a FAKE (FakeMachineSetDemoProvider)
// around the real Nova path. Reboots go through the real OpenStack client (Keystone token,
// Nova API over HTTP) — NovaRebootProvider from @noderepair/openstack, a legacy
// RebootProvider wrapped by core's machineProviderFromRebootProvider (LEGACY adapter: its
// fence() always answers NotFenced, so only a new Node bootID after a HardReboot fences) —
// to the FAKE Nova. Replace is not a Nova action: in a Cluster API cluster the MachineSet
// replaces the Machine. There is no Cluster API here, so a stand-in, named as such, does
// what a MachineSet would: delete the server and the Node, create a new server, and a new
// Node joins in the same zone; once it did, fence() reports the old machine Deleted.
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderContext,
  ProviderOutcome,
} from '@noderepair/core';

/** What the stand-in needs to replace a machine; returns the new Node's name. */
export type ReplaceMachine = (node: string) => Promise<string>;

export class FakeMachineSetDemoProvider implements MachineProvider {
  readonly name: string;
  readonly actions: ReadonlySet<ProviderAction>;
  /** Replacements accepted, by action id: the port's contract is one execution per id. */
  readonly #replaced = new Map<string, ProviderOutcome>();
  /** Replacements done (the old machine deleted), by action id. */
  readonly #deleted = new Set<string>();
  readonly #pending: Promise<unknown>[] = [];

  constructor(
    private readonly nova: MachineProvider,
    private readonly replace: ReplaceMachine,
    private readonly delayReplaceMs = 1000,
  ) {
    this.name = `${nova.name}+machineset-stand-in`;
    this.actions = new Set<ProviderAction>([...nova.actions, 'Replace']);
  }

  async execute(req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> {
    if (req.action !== 'Replace') return this.nova.execute(req, ctx);
    const done = this.#replaced.get(req.actionId);
    if (done) return done;
    const result: ProviderOutcome = {
      kind: 'Accepted',
      message: `machine of ${req.node} handed to the MachineSet stand-in for replacement`,
    };
    this.#replaced.set(req.actionId, result);
    // Like Cluster API, the replacement happens after the request is accepted, so the
    // controller records its outcome on the Node before that Node is deleted.
    const p = new Promise((r) => setTimeout(r, this.delayReplaceMs))
      .then(() => this.replace(req.node))
      .then(() => this.#deleted.add(req.actionId));
    this.#pending.push(p.catch(() => undefined));
    return result;
  }

  async fence(q: FenceQuery, ctx: ProviderContext): Promise<FenceStatus> {
    if (q.action !== 'Replace') return this.nova.fence(q, ctx);
    return this.#deleted.has(q.actionId)
      ? { kind: 'Fenced', how: 'Deleted', evidence: `the stand-in deleted the server of ${q.node}` }
      : { kind: 'NotFenced', reason: 'the replacement has not deleted the old server yet' };
  }

  /** Waits for replacements still under way (at shutdown). */
  async settle(): Promise<void> {
    await Promise.all(this.#pending);
  }
}
