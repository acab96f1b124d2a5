// "Initial sync done" for any controller-runtime-style manager, from its own /metrics: its
// main controller has reconciled every object once (controller_runtime_reconcile_total for
// that controller >= the number of objects) and no work queue holds anything
// (workqueue_depth == 0 everywhere). Both our Manager and Cluster API's (controller-runtime)
// export these names, so the same rule times both. Pure, on parsed samples.
import type { Sample } from './prometheus-text.js';

export interface SyncState {
  reconciles: number;
  queued: number;
  done: boolean;
}

export function syncState(
  samples: readonly Sample[],
  controller: string,
  objects: number,
): SyncState {
  let reconciles = 0;
  let queued = 0;
  for (const s of samples) {
    if (s.name === 'controller_runtime_reconcile_total' && s.labels['controller'] === controller)
      reconciles += s.value;
    if (s.name === 'workqueue_depth') queued += s.value;
  }
  return { reconciles, queued, done: reconciles >= objects && queued === 0 };
}
