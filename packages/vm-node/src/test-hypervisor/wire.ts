// The test hypervisor's control API: what hypervisor.ts serves and provider.ts reads.

/** The power actions the test hypervisor executes. */
export type TestHypervisorAction = 'SoftReboot' | 'HardReboot' | 'PowerOff';

/** One executed action, as the hypervisor records it (its answer to a repeated actionId too). */
export interface ActionRecord {
  readonly actionId: string;
  readonly machine: string;
  readonly action: TestHypervisorAction;
  /** When the hypervisor executed it (epoch ms). */
  readonly acceptedAt: number;
  /** How many QMP events the machine had before it: the fence looks at the ones after. */
  readonly eventSeq: number;
}

/** Whether an action's effect was observed. */
export type FenceAnswer =
  | {
      readonly fenced: true;
      readonly how: 'ResetObserved' | 'PoweredOff';
      readonly evidence: string;
      readonly at?: number;
    }
  | { readonly fenced: false; readonly reason: string };

/** A machine's power state as the hypervisor sees it. */
export type PowerAnswer =
  | { readonly state: 'On'; readonly evidence: string }
  | {
      readonly state: 'Off';
      readonly byRequest: boolean;
      readonly evidence: string;
      readonly since?: number;
    };

/** The providerID scheme of test hypervisor machines: `qemu-test:///<machine name>`. */
export const PROVIDER_ID_PREFIX = 'qemu-test:///';
