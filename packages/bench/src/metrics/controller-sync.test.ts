import { describe, expect, it } from 'vitest';
import { syncState } from './controller-sync.js';
import { parsePrometheusText } from './prometheus-text.js';

const metrics = (machineSuccess: number, depth: number) =>
  parsePrometheusText(`
controller_runtime_reconcile_total{controller="machine",result="success"} ${machineSuccess}
controller_runtime_reconcile_total{controller="machine",result="requeue"} 2
controller_runtime_reconcile_total{controller="cluster",result="success"} 40
workqueue_depth{controller="machine",name="machine"} ${depth}
workqueue_depth{controller="cluster",name="cluster"} 0
`);

describe('syncState', () => {
  it('is done once every object was reconciled and every queue is empty', () => {
    expect(syncState(metrics(998, 0), 'machine', 1000)).toEqual({
      reconciles: 1000,
      queued: 0,
      done: true,
    });
  });

  it('is not done while reconciles are short or anything is queued', () => {
    expect(syncState(metrics(900, 0), 'machine', 1000).done).toBe(false);
    expect(syncState(metrics(2000, 3), 'machine', 1000)).toEqual({
      reconciles: 2002,
      queued: 3,
      done: false,
    });
  });

  it('counts only the named controller', () => {
    expect(syncState(metrics(0, 0), 'cluster', 40).done).toBe(true);
    expect(syncState(metrics(0, 0), 'noderepair-autorepair', 1).reconciles).toBe(0);
  });
});
