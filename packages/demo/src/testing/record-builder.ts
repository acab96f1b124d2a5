// Hand-made records for the unit tests: a node's life as a list of (time, Ready, phase)
// steps plus actions, folded through the same observe()/addAction() the demo uses.
import {
  addAction,
  finish,
  newRecord,
  observe,
  type ActionRecord,
  type DemoRecord,
  type NodeSample,
} from '../record/timeline.js';

export function sample(
  name: string,
  ready: NodeSample['ready'],
  phase = 'Healthy',
  extra: Partial<NodeSample> = {},
): NodeSample {
  return {
    name,
    zone: name.replace(/-\d+(-r\d+)?$/, ''),
    ready,
    readyMessage: '',
    phase,
    cause: '',
    step: '',
    phaseSince: undefined,
    unschedulable: false,
    ...extra,
  };
}

/** Steps: at time t the fleet looks like `samples` (nodes absent from a step are deleted). */
export function buildRecord(
  steps: readonly { t: number; samples: NodeSample[] }[],
  actions: readonly (Omit<ActionRecord, 'note'> & { note?: string })[] = [],
  end?: number,
): DemoRecord {
  const rec = newRecord(1_700_000_000_000);
  for (const s of steps) observe(rec, s.t, s.samples);
  for (const a of actions) addAction(rec, { note: '', ...a });
  finish(rec, end ?? Math.max(...steps.map((s) => s.t), ...actions.map((a) => a.t)));
  return rec;
}
