// FAKE MachineProvider for the envtest tests of the power-state rules (shutdown.int.test.ts,
// fresh-evidence.int.test.ts): execute() accepts each action id once and touches nothing, so
// the machine stays as it is (off, or on with its node silent); powerState() answers what the
// test sets and records every question; fence() says NotFenced (not what those tests ask).
// The provider's own record (`requests`, `powerQueries`) is what the tests count.
import type {
  ActionRequest,
  FenceStatus,
  MachineProvider,
  MachineRef,
  PowerState,
  ProviderAction,
  ProviderOutcome,
} from '../src/provider/port.js';
import { ProviderActions } from '../src/provider/port.js';

export class PowerStateProviderFake implements MachineProvider {
  readonly name = 'power-state-fake';
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  /** Every execute() call, replays included. */
  readonly requests: ActionRequest[] = [];
  /** Every powerState() question, and when it was asked (Date.now()). */
  readonly powerQueries: MachineRef[] = [];
  readonly powerQueryTimes: number[] = [];
  private readonly done = new Map<string, ProviderOutcome>();

  constructor(public powerAnswer: PowerState) {}

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: ProviderOutcome = { kind: 'Accepted', message: `${req.action} accepted` };
    this.done.set(req.actionId, r);
    return r;
  }

  async fence(): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: 'not asked about here' };
  }

  async powerState(m: MachineRef): Promise<PowerState> {
    this.powerQueries.push({ ...m });
    this.powerQueryTimes.push(Date.now());
    return this.powerAnswer;
  }

  /** The distinct action ids the provider was asked for (a replay of an id is the same one). */
  distinctActions(): string[] {
    return [...new Set(this.requests.map((r) => r.actionId))];
  }
}
