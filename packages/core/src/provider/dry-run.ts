// The built-in provider for dry runs and tests: records every request, acts on nothing,
// fences nothing (nothing was powered off, so nothing may be tainted or deleted).
import type {
  ProviderOutcome,
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
} from './port.js';
import { ProviderActions } from './port.js';
import type { ProviderModule } from './module.js';

/**
 * The provider of dry runs and tests: records every request, accepts it without acting, and never
 * reports a machine fenced (nothing was powered off).
 */
export class DryRunProvider implements MachineProvider {
  /** Provider name, as on the command line. */
  readonly name = 'dry-run';
  /** Every action: a dry run accepts whatever the ladder asks for. */
  readonly actions: ReadonlySet<ProviderAction> = new Set(ProviderActions);
  /** Every request received, replays included, in order. */
  readonly requests: ActionRequest[] = [];
  private readonly done = new Map<string, ProviderOutcome>();

  /** Records the request and answers Accepted; a repeated actionId gets the first answer again. */
  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: ProviderOutcome = {
      kind: 'Accepted',
      message: `dry-run: would ${req.action} ${req.node}`,
    };
    this.done.set(req.actionId, r);
    return r;
  }

  /**
   * Always NotFenced: a dry run never turns a machine off, so nothing may be tainted or deleted.
   */
  async fence(q: FenceQuery): Promise<FenceStatus> {
    return { kind: 'NotFenced', reason: `dry-run: ${q.node} was not touched` };
  }

  /** Distinct action ids executed (what a real provider would have done). */
  executedActionIds(): string[] {
    return [...this.done.keys()];
  }
}

/** `--provider dry-run`: only with --dry-run (or dryRun: true), which the CLI checks. */
export const dryRunProviderModule: ProviderModule = {
  name: 'dry-run',
  options: {},
  create: () => new DryRunProvider(),
};
