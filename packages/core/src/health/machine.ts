// The machine behind a node, in the words the repair judgement reads it: what a provider can
// be asked to do to it, which of those can fence it, and its power state.
//
// These lived in provider/ (port.ts, fence.ts), so the judgement (node.ts, observation.ts,
// shutdown.ts, repair-actions.ts) imported the provider folder while the provider's site steps
// and legacy adapter import the judgement's policy and time: the two folders leaned on each
// other. The judgement is the lower layer: it decides from what it is given and knows no
// adapter, while an adapter carries out what the policy names. So the few words both sides
// speak live here, at the judgement's side, and the provider port (provider/port.ts,
// provider/fence.ts) is written in them and re-exports them: @noderepair/core/provider still
// exports ProviderAction, PowerState and canFence, unchanged. Layer order: layers.config.mjs.
//
// Pure: types and one rule, no I/O.

/**
 * What a provider can be asked to do to a machine. `Command` and `Webhook` are site steps:
 * core runs them itself (provider/site-steps.ts wraps any provider), and they never fence.
 */
export type ProviderAction =
  | 'SoftReboot'
  | 'HardReboot'
  | 'PowerOff'
  | 'Rebuild'
  | 'Replace'
  | 'Command'
  | 'Webhook';

/** Whether an action can fence at all once it is observed. */
export function canFence(action: ProviderAction): boolean {
  return action !== 'SoftReboot' && action !== 'Command' && action !== 'Webhook';
}

/**
 * A machine's power state as the infrastructure reports it; Unavailable means it could not be
 * asked.
 */
export type PowerState =
  | { readonly kind: 'On' }
  /**
   * Powered off. `byRequest` is true when the infrastructure records a stop that somebody
   * other than this provider asked for (an operator's, a maintenance's, a graceful
   * shutdown's): the controller then treats the node as shut down and never powers it on. A
   * crash, or a stop this provider sent itself (say so in `evidence`), is not byRequest.
   */
  | {
      readonly kind: 'Off';
      readonly since?: number;
      readonly byRequest: boolean;
      readonly evidence: string;
    }
  | { readonly kind: 'Gone'; readonly evidence: string }
  | { readonly kind: 'Unavailable'; readonly reason: string };
