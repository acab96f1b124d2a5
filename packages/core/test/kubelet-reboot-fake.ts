// A FAKE machine provider for the autorepair integration tests: it "reboots" a node by
// rebooting its fake kubelet (envtest), once per action id as the provider port requires.
// Outside src/, so it never ships in dist.
import type { FakeKubelet } from '@noderepair/envtest';
import type {
  ActionRequest,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../src/provider/port.js';

/**
 * FAKE provider: "reboots" a node by rebooting its fake kubelet, once per action id (as the
 * port requires), and records every request.
 */
export class KubeletRebootProviderFake implements MachineProvider {
  readonly name = 'kubelet-reboot-fake';
  readonly actions: ReadonlySet<ProviderAction> = new Set<ProviderAction>([
    'SoftReboot',
    'HardReboot',
  ]);
  readonly requests: ActionRequest[] = [];
  private readonly done = new Map<string, ProviderOutcome>();
  private readonly pending: Promise<void>[] = [];

  /** One kubelet, or the kubelet of each node by name (a provider for a fleet). */
  constructor(
    private readonly kubelet: FakeKubelet | ((node: string) => FakeKubelet | undefined),
  ) {}

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: ProviderOutcome = { kind: 'Accepted', message: `${req.action} accepted by the fake` };
    this.done.set(req.actionId, r);
    const k = typeof this.kubelet === 'function' ? this.kubelet(req.node) : this.kubelet;
    if (k === undefined) throw new Error(`the fake has no kubelet for node ${req.node}`);
    this.pending.push(k.reboot(1500));
    return r;
  }

  // No power state: only the rebooted fake kubelet's new boot ID tells the reboot happened.
  async fence(): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: 'the fake does not report power state' };
  }

  settle(): Promise<void[]> {
    return Promise.all(this.pending);
  }
}
