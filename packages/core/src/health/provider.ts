// DEPRECATED: the legacy RebootProvider port, kept only for packages not yet moved to the
// MachineProvider port (provider/port.ts), which replaces it: it can say "I could not ask"
// (Unavailable, which waits) apart from "refused" (Rejected), and it reports fencing.
// Wrap a legacy provider with machineProviderFromRebootProvider (provider/legacy.ts).
//
// The RebootProvider port: how a repair action reaches the infrastructure (OpenStack Nova,
// a BMC, a cloud API). The contract that makes "exactly one reboot" possible across
// controller restarts: a provider receiving an actionId it has already executed must not act
// again; it returns the first result (see docs/health.md, "Exactly one reboot").
import type { RemediationStepKind } from './policy.js';

/**
 * A repair action for a RebootProvider (deprecated: MachineProvider's ActionRequest replaces it).
 */
export interface RebootRequest {
  /** The Node's name. */
  node: string;
  /** The Node's spec.providerID, when known (e.g. openstack:///<server uuid>). */
  providerID?: string;
  /** The repair to carry out. */
  action: RemediationStepKind;
  /** For Rebuild: the image to rebuild from (the ladder step's `image`). */
  image?: string;
  /** Stable id of this attempt; the idempotency key. */
  actionId: string;
  /** True when re-issued after a restart found the intent without completion. */
  replay: boolean;
}

/**
 * A RebootProvider's answer (deprecated: MachineProvider's ProviderOutcome replaces it, which can
 * also say Unavailable).
 */
export interface RebootResult {
  /** Succeeded: the action was accepted; Failed: it was not (the attempt fails). */
  result: 'Succeeded' | 'Failed';
  /** The provider's explanation, for events. */
  message?: string;
}

/**
 * The legacy port a repair action reached the infrastructure through; it cannot say "could
 * not ask" apart from "refused", nor report fencing.
 *
 * @deprecated use MachineProvider (provider/port.ts).
 */
export interface RebootProvider {
  /** The provider's name, for events and logs. */
  readonly name: string;
  /**
   * Carries out the action, at most once per actionId: a repeated id returns the first result
   * without acting again.
   */
  execute(req: RebootRequest, signal?: AbortSignal): Promise<RebootResult>;
}

/**
 * Built-in provider for dry runs and tests: records every request, acts on nothing. Idempotent on actionId.
 *
 * @deprecated use DryRunProvider (provider/dry-run.ts).
 */
export class DryRunRebootProvider implements RebootProvider {
  /** Always `dry-run`. */
  readonly name = 'dry-run';
  /** Every request received, replays included, in order. */
  readonly requests: RebootRequest[] = [];
  private readonly done = new Map<string, RebootResult>();

  /**
   * Records the request and answers Succeeded without acting; a repeated actionId returns the first
   * result.
   */
  async execute(req: RebootRequest): Promise<RebootResult> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: RebootResult = {
      result: 'Succeeded',
      message: `dry-run: would ${req.action} ${req.node}`,
    };
    this.done.set(req.actionId, r);
    return r;
  }

  /** Distinct action ids executed (what a real provider would have done). */
  executedActionIds(): string[] {
    return [...this.done.keys()];
  }
}
