// The pure outage and fencing decisions of the reconciler (cloud.ts).
import { describe, expect, it } from 'vitest';
import type { RemediationSpec, RemediationStatus } from '../api/index.js';
import { cloudBackoffMs, cloudWaitMs, fenceVerdict, shouldAskFence } from './cloud.js';
import type { NodeView } from './node-view.js';

const spec = (outOfServiceTaint = true) =>
  ({
    steps: [{ type: 'HardReboot', timeoutSeconds: 60, retries: 0 }],
    drain: { enabled: true, timeoutSeconds: 10, outOfServiceTaint },
    minHealthySeconds: 5,
  }) as unknown as RemediationSpec;
const waiting = (type = 'HardReboot'): RemediationStatus =>
  ({
    phase: 'Waiting',
    history: [
      { step: 0, type, attempt: 1, startTime: '2026-12-05T04:00:00Z', result: 'InProgress' },
    ],
  }) as unknown as RemediationStatus;
const node = (ready: NodeView['ready'], bootID = 'b1'): NodeView => ({
  name: 'n',
  ready,
  readySinceMs: undefined,
  bootID,
  unschedulable: true,
  providerID: 'openstack:///x',
});

describe('cloudBackoffMs', () => {
  it('half the outage age, between 5 s and 60 s, never below the hint', () => {
    expect(cloudBackoffMs(undefined, 1_000)).toBe(5_000);
    expect(cloudBackoffMs(0, 30_000)).toBe(15_000);
    expect(cloudBackoffMs(0, 600_000)).toBe(60_000);
    expect(cloudBackoffMs(0, 1_000, 10_000)).toBe(10_000);
  });
});

describe('cloudWaitMs: may Nova be asked now', () => {
  const at = (cloudRetryTime?: string) =>
    ({ ...(cloudRetryTime !== undefined ? { cloudRetryTime } : {}) }) as RemediationStatus;
  const t0 = Date.parse('2026-12-07T05:00:00.000Z');
  it('waits until status.cloudRetryTime, whenever the reconcile wakes before it', () => {
    // Long after the outage began (the old hold-off ended 5 s after its start): still waits.
    expect(cloudWaitMs(at('2026-12-07T05:00:40.000Z'), t0)).toBe(40_000);
    expect(cloudWaitMs(at('2026-12-07T05:00:40.000Z'), t0 + 39_871)).toBe(129);
  });
  it('asks now at or after that time, without one, or when Nova answered (the field is gone)', () => {
    expect(cloudWaitMs(at('2026-12-07T05:00:40.000Z'), t0 + 40_000)).toBe(0);
    expect(cloudWaitMs(at('2026-12-07T05:00:40.000Z'), t0 + 90_000)).toBe(0);
    expect(cloudWaitMs(at(), t0)).toBe(0);
    expect(cloudWaitMs(undefined, t0)).toBe(0);
  });
  it('does not wait for a time no backoff could have set (a clock that moved)', () => {
    expect(cloudWaitMs(at('2026-12-07T05:01:00.000Z'), t0)).toBe(60_000);
    expect(cloudWaitMs(at('2026-12-07T06:00:00.000Z'), t0)).toBe(0);
  });
});

describe('shouldAskFence', () => {
  it('after an accepted HARD reboot of a node that is not Ready', () => {
    expect(shouldAskFence(spec(), waiting(), node('Unknown'), false)).toMatchObject({
      type: 'HardReboot',
    });
  });
  it('never for a SoftReboot, a Ready node, before acceptance, when fenced, or with the taint off', () => {
    expect(shouldAskFence(spec(), waiting('SoftReboot'), node('Unknown'), false)).toBeUndefined();
    expect(shouldAskFence(spec(), waiting(), node('True'), false)).toBeUndefined();
    expect(
      shouldAskFence(spec(), { ...waiting(), phase: 'Remediating' }, node('Unknown'), false),
    ).toBeUndefined();
    expect(shouldAskFence(spec(), waiting(), node('Unknown'), true)).toBeUndefined();
    expect(shouldAskFence(spec(false), waiting(), node('Unknown'), false)).toBeUndefined();
  });
});

describe('fenceVerdict', () => {
  const attempt = waiting().history![0]!;
  it("Nova's word, or a new bootID after the HARD reboot", () => {
    expect(
      fenceVerdict(attempt, { kind: 'NotFenced', reason: 'pending' }, 'b1', node('Unknown')),
    ).toMatchObject({ fenced: false });
    expect(
      fenceVerdict(attempt, { kind: 'NotFenced', reason: 'pending' }, 'b1', node('False', 'b2')),
    ).toMatchObject({ fenced: true, how: 'ResetObserved' });
    expect(
      fenceVerdict(
        attempt,
        { kind: 'Fenced', how: 'PoweredOff', evidence: 'SHUTOFF' },
        'b1',
        node('Unknown'),
      ),
    ).toMatchObject({ fenced: true, how: 'PoweredOff' });
    expect(
      fenceVerdict(attempt, { kind: 'Unavailable', reason: 'down' }, 'b1', node('Unknown')),
    ).toMatchObject({ fenced: false });
  });
});
