import type { V1Node } from '@kubernetes/client-node';
import { serializeRepairState, type RepairState } from '@noderepair/core/health';
import { describe, expect, it } from 'vitest';
import { nodeSample, ZONE_LABEL } from './sample.js';

const KEY = 'noderepair.io/repair-state';

function node(
  ready: { status: string; message?: string } | undefined,
  annotation?: string,
): V1Node {
  return {
    metadata: {
      name: 'zone-b-07',
      labels: { [ZONE_LABEL]: 'zone-b' },
      annotations: annotation ? { [KEY]: annotation } : {},
    },
    spec: { unschedulable: true },
    status: {
      conditions: ready
        ? [{ type: 'Ready', status: ready.status, message: ready.message ?? '' }]
        : [],
    },
  };
}

describe('nodeSample', () => {
  it('reads Ready and noderepair state written by core', () => {
    const state: RepairState = {
      v: 1,
      phase: 'Verifying',
      since: 10_500,
      episodes: [],
      remediation: {
        id: 'zone-b-07/1',
        startedAt: 10_000,
        cause: 'KubeletUnreachable',
        step: 1,
        attempt: 1,
        cordoned: true,
        intent: { actionId: 'x', action: 'HardReboot', step: 1, attempt: 1, issuedAt: 10_400 },
      },
    };
    const s = nodeSample(
      node(
        { status: 'Unknown', message: 'Kubelet stopped posting node status.' },
        serializeRepairState(state),
      ),
      KEY,
      10_000,
    );
    expect(s).toEqual({
      name: 'zone-b-07',
      zone: 'zone-b',
      ready: 'Unknown',
      readyMessage: 'Kubelet stopped posting node status.',
      phase: 'Verifying',
      cause: 'KubeletUnreachable',
      step: 'HardReboot',
      phaseSince: 500,
      unschedulable: true,
      readySince: undefined,
      episodes: 0,
    });
  });

  it('a node noderepair never annotated is Healthy; no Ready condition is None', () => {
    const s = nodeSample(node(undefined), KEY, 0);
    expect(s.ready).toBe('None');
    expect(s.phase).toBe('Healthy');
    expect(s.phaseSince).toBeUndefined();
  });

  it('an annotation core cannot read shows as Unreadable', () => {
    expect(nodeSample(node({ status: 'True' }, '{not json'), KEY, 0).phase).toBe('Unreadable');
  });
});
