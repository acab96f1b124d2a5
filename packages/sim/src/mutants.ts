// Deliberately broken providers, to show the invariants can fail (a check that never fails
// proves nothing). Each wraps SimCloud the way a buggy adapter would; the tests run seeds
// through them and expect the named invariant to catch it.
import type { ActionRequest, MachineProvider } from '@noderepair/core/provider';

/**
 * MUTANT: a replay (the controller asking "did my lost request arrive?") is sent as a fresh
 * request under a new id, as an adapter that mints its own idempotency key per call would.
 * Nova then acts twice; invariant (a) must catch the second power action.
 */
export function replayUnderNewId(p: MachineProvider): MachineProvider {
  let n = 0;
  return {
    name: `${p.name}+replay-under-new-id`,
    actions: p.actions,
    execute: (req: ActionRequest, ctx) =>
      p.execute(
        req.replay ? { ...req, actionId: `${req.actionId}/retry-${++n}`, replay: false } : req,
        ctx,
      ),
    fence: (q, ctx) => p.fence(q, ctx),
    ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
  };
}

/**
 * MUTANT: an outage reported as a rejection (an adapter that maps 503 to Rejected), which
 * breaks promise 2: the ladder uses up attempts while the cloud is down. Invariant (b).
 */
export function outageAsRejection(p: MachineProvider): MachineProvider {
  return {
    name: `${p.name}+outage-as-rejection`,
    actions: p.actions,
    execute: async (req, ctx) => {
      const r = await p.execute(req, ctx);
      return r.kind === 'Unavailable' ? { kind: 'Rejected', message: `mutant: ${r.message}` } : r;
    },
    fence: (q, ctx) => p.fence(q, ctx),
    ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
  };
}

/**
 * MUTANT: a provider that cannot tell a person's stop from a crash (powerState always says
 * the stop was not by request), so the controller repairs a stopped machine: a HardReboot
 * powers it on. Invariant (c).
 */
export function blindToPersonStop(p: MachineProvider): MachineProvider {
  return {
    name: `${p.name}+blind-to-person-stop`,
    actions: p.actions,
    execute: (req, ctx) => p.execute(req, ctx),
    fence: (q, ctx) => p.fence(q, ctx),
    powerState: async (m, ctx) => {
      const s = await p.powerState!(m, ctx);
      return s.kind === 'Off' ? { ...s, byRequest: false } : s;
    },
  };
}

/**
 * MUTANT: a provider that reports any machine it reset as fenced without looking (as "any 404
 * after a HardReboot counts as fenced" did): a reboot Nova accepted and then failed fences
 * nothing, but the controller adds the out-of-service taint. Invariant (e).
 */
export function fenceWithoutLooking(p: MachineProvider): MachineProvider {
  return {
    name: `${p.name}+fence-without-looking`,
    actions: p.actions,
    execute: (req, ctx) => p.execute(req, ctx),
    fence: async (q) =>
      q.action === 'HardReboot'
        ? { kind: 'Fenced', how: 'ResetObserved', evidence: 'mutant: assumed' }
        : { kind: 'NotFenced', reason: 'mutant' },
    ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
  };
}

/**
 * MUTANT: a provider that answers every action Accepted and never sends it (an adapter that
 * posts to the wrong endpoint and takes any 2xx for a yes). Nothing is ever power-cycled, the
 * ladder runs out on timeouts the world cannot explain, and the broken nodes stay broken.
 * Invariant (h).
 */
export function acceptsButNeverActs(p: MachineProvider): MachineProvider {
  return {
    name: `${p.name}+accepts-but-never-acts`,
    actions: p.actions,
    execute: async (req) => ({ kind: 'Accepted', message: 'mutant: 202', ref: req.actionId }),
    fence: (q, ctx) => p.fence(q, ctx),
    ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
  };
}

/**
 * MUTANT: a provider that reports a machine fenced as soon as Nova accepted its DELETE (an
 * adapter that takes the 204 for the deletion, or the task `deleting` for a deleted server):
 * the controller's DeleteNode step deletes the Node, and the pod GC force-deletes its pods,
 * while the server still runs. Invariant (e).
 */
export function deleteBeforeFence(p: MachineProvider): MachineProvider {
  return {
    name: `${p.name}+delete-before-fence`,
    actions: p.actions,
    execute: (req, ctx) => p.execute(req, ctx),
    fence: async (q, ctx) =>
      q.action === 'Replace'
        ? { kind: 'Fenced', how: 'Deleted', evidence: 'mutant: DELETE accepted (204)' }
        : p.fence(q, ctx),
    ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
  };
}
