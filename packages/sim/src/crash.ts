// A controller process that dies: its ReconcileContext signal aborts (SimKube then refuses
// every call it still makes, as the port promises for an aborted signal) and the run starts a
// new NodeReconciler with no memory. A crash armed for the next provider call fires around
// it, the way a SIGKILL lands between persisting an intent and recording its outcome: before
// the request leaves (Nova never acts), or after Nova acted (the reply dies with the process).
import type { MachineProvider } from '@noderepair/core/provider';

/** When an armed crash fires. */
export type CrashPoint = 'idle' | 'before-send' | 'after-send';

/** Holds the armed crash and wraps the provider the controller talks to. */
export class CrashSwitch {
  private armed: Exclude<CrashPoint, 'idle'> | undefined;
  /** `crash` kills the current process (aborts its signal) and starts the next one. */
  constructor(private readonly crash: (why: string) => void) {}

  /** Crashes now (`idle`) or arms a crash around the next provider call. */
  arm(point: CrashPoint): void {
    if (point === 'idle') this.crash('idle');
    else this.armed = point;
  }

  /** The provider as the controller sees it: an armed crash fires around execute(). */
  wrap(p: MachineProvider): MachineProvider {
    return {
      name: p.name,
      actions: p.actions,
      execute: async (req, ctx) => {
        const point = this.armed;
        this.armed = undefined;
        if (point === 'before-send') {
          this.crash(`before sending ${req.actionId}`);
          throw new Error('process killed before the request left');
        }
        const r = await p.execute(req, ctx);
        if (point === 'after-send') this.crash(`after Nova took ${req.actionId}`);
        return r;
      },
      fence: (q, ctx) => p.fence(q, ctx),
      ...(p.powerState !== undefined ? { powerState: p.powerState.bind(p) } : {}),
    };
  }
}
