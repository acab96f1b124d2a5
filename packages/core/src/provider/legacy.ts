// LEGACY: wraps an old RebootProvider (health/provider.ts) as a MachineProvider, for code not
// yet moved to the port (e.g. @noderepair/openstack's NovaRebootProvider until its
// NovaMachineProvider lands). What the old interface cannot say is answered conservatively:
// - `Failed` becomes `Rejected` (the old interface cannot tell an outage from a refusal);
// - a thrown error becomes `Unavailable` with `maybeSent: true` (the request may have left);
// - `fence` always answers NotFenced: the old interface cannot report power state, so only a
//   new Node bootID after a HardReboot or Rebuild can fence (provider/fence.ts).
// New providers implement MachineProvider directly.
import type { RebootProvider } from '../health/provider.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderContext,
  ProviderOutcome,
} from './port.js';

/**
 * Wraps a legacy RebootProvider as a MachineProvider, answering conservatively what the old
 * interface cannot say: its fence always answers NotFenced, a thrown error is Unavailable.
 *
 * @deprecated for legacy RebootProviders only; implement MachineProvider instead.
 */
export function machineProviderFromRebootProvider(legacy: RebootProvider): MachineProvider {
  const actions: ReadonlySet<ProviderAction> = new Set<ProviderAction>([
    'SoftReboot',
    'HardReboot',
    'Rebuild',
    'Replace',
  ]);
  return {
    name: legacy.name,
    actions,
    async execute(req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> {
      if (req.action === 'PowerOff')
        return { kind: 'Rejected', message: `${legacy.name} (legacy) cannot power off` };
      try {
        const r = await legacy.execute(
          {
            node: req.node,
            ...(req.providerID !== '' ? { providerID: req.providerID } : {}),
            action: req.action,
            ...(req.image !== undefined ? { image: req.image } : {}),
            actionId: req.actionId,
            replay: req.replay,
          },
          ctx.signal,
        );
        return r.result === 'Succeeded'
          ? { kind: 'Accepted', message: r.message ?? `${req.action} accepted` }
          : { kind: 'Rejected', message: r.message ?? `${req.action} failed` };
      } catch (e) {
        return {
          kind: 'Unavailable',
          message: e instanceof Error ? e.message : String(e),
          maybeSent: true,
        };
      }
    },
    async fence(q: FenceQuery): Promise<FenceStatus> {
      return {
        kind: 'NotFenced',
        reason: `${legacy.name} is a legacy RebootProvider and cannot report power state; only a new bootID after the ${q.action} can prove the reset`,
      };
    },
  };
}
