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

export interface RebootRequest {
  node: string;
  /** The Node's spec.providerID, when known (e.g. openstack:///<server uuid>). */
  providerID?: string;
  action: RemediationStepKind;
  /** For Rebuild: the image to rebuild from (the ladder step's `image`). */
  image?: string;
  /** Stable id of this attempt; the idempotency key. */
  actionId: string;
  /** True when re-issued after a restart found the intent without completion. */
  replay: boolean;
}

export interface RebootResult {
  result: 'Succeeded' | 'Failed';
  message?: string;
}

/** @deprecated use MachineProvider (provider/port.ts). */
export interface RebootProvider {
  readonly name: string;
  execute(req: RebootRequest, signal?: AbortSignal): Promise<RebootResult>;
}

/**
 * @deprecated use DryRunProvider (provider/dry-run.ts).
 * Built-in provider for dry runs and tests: records every request, acts on nothing. Idempotent on actionId.
 */
export class DryRunRebootProvider implements RebootProvider {
  readonly name = 'dry-run';
  /** Every request received, replays included, in order. */
  readonly requests: RebootRequest[] = [];
  private readonly done = new Map<string, RebootResult>();

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
