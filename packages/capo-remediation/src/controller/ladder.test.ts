import { describe, expect, it } from 'vitest';
import type { Attempt, RemediationSpec, RemediationStatus } from '../api/index.js';
import {
  actionIdFor,
  bootIDBefore,
  cameBack,
  decideLadder,
  FAILED_ATTEMPT_BACKOFF_MS,
  intentMessage,
  nextPosition,
  type LadderInput,
} from './ladder.js';
import type { NodeView } from './node-view.js';

const T0 = Date.parse('2026-12-02T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const spec: RemediationSpec = {
  steps: [
    { type: 'SoftReboot', timeoutSeconds: 60, retries: 1 },
    { type: 'HardReboot', timeoutSeconds: 120, retries: 0 },
    { type: 'Rebuild', timeoutSeconds: 600, retries: 0, imageRef: 'img-1' },
  ],
  drain: { enabled: true, timeoutSeconds: 300, outOfServiceTaint: true },
  minHealthySeconds: 30,
};

const node = (over: Partial<NodeView> = {}): NodeView => ({
  name: 'n1',
  ready: 'Unknown',
  readySinceMs: T0 - 600_000,
  bootID: 'boot-1',
  unschedulable: true,
  providerID: 'openstack:///x',
  ...over,
});

const attempt = (over: Partial<Attempt> = {}): Attempt => ({
  step: 0,
  type: 'SoftReboot',
  attempt: 1,
  startTime: iso(T0),
  result: 'InProgress',
  message: intentMessage('SoftReboot of server x', 'boot-1'),
  ...over,
});

const input = (
  status: RemediationStatus | undefined,
  over: Partial<LadderInput> = {},
): LadderInput => ({
  spec,
  status,
  node: node(),
  recoveredSinceMs: undefined,
  now: T0 + 1000,
  ...over,
});

describe('decideLadder', () => {
  it('drains first when enabled, else acts on step 0 attempt 1', () => {
    expect(decideLadder(input(undefined))).toEqual({ kind: 'Drain' });
    expect(decideLadder(input({ phase: 'Draining' }))).toEqual({ kind: 'Drain' });
    expect(
      decideLadder(
        input(undefined, { spec: { ...spec, drain: { ...spec.drain, enabled: false } } }),
      ),
    ).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 1 },
      step: { type: 'SoftReboot' },
    });
  });

  it('replays an intent whose completion was not recorded (same position: same action id)', () => {
    const d = decideLadder(input({ phase: 'Remediating', history: [attempt({ attempt: 2 })] }));
    expect(d).toMatchObject({ kind: 'Replay', at: { step: 0, attempt: 2 } });
  });

  it('waits inside the step timeout while the node is not back', () => {
    const d = decideLadder(input({ phase: 'Waiting', history: [attempt()] }, { now: T0 + 58_000 }));
    expect(d).toEqual({ kind: 'Wait', requeueAfterMs: 2000 });
  });

  it('retries within the step, then escalates, then gives up', () => {
    const timedOut = (a: Partial<Attempt>) =>
      decideLadder(input({ phase: 'Waiting', history: [attempt(a)] }, { now: T0 + 600_001 }));
    expect(timedOut({})).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      ended: { result: 'TimedOut' },
    });
    expect(timedOut({ attempt: 2 })).toMatchObject({
      kind: 'Act',
      at: { step: 1, attempt: 1 },
      step: { type: 'HardReboot' },
    });
    expect(timedOut({ step: 1, type: 'HardReboot' })).toMatchObject({
      kind: 'Act',
      at: { step: 2, attempt: 1 },
      step: { type: 'Rebuild', imageRef: 'img-1' },
    });
    const gaveUp = timedOut({ step: 2, type: 'Rebuild' });
    expect(gaveUp).toMatchObject({ kind: 'GiveUp', ended: { result: 'TimedOut' } });
    expect(gaveUp.kind === 'GiveUp' && gaveUp.message).toContain(
      'SoftReboot x2, HardReboot, Rebuild',
    );
  });

  it('after a failed Nova call waits the backoff, then uses up the attempt', () => {
    const failed = attempt({
      result: 'Failed',
      completionTime: iso(T0 + 1000),
      message: 'ServerNotFound: gone',
    });
    const status: RemediationStatus = { phase: 'Remediating', history: [failed] };
    expect(decideLadder(input(status, { now: T0 + 2000 }))).toEqual({
      kind: 'Wait',
      requeueAfterMs: FAILED_ATTEMPT_BACKOFF_MS - 1000,
    });
    expect(
      decideLadder(input(status, { now: T0 + 1000 + FAILED_ATTEMPT_BACKOFF_MS })),
    ).toMatchObject({ kind: 'Act', at: { step: 0, attempt: 2 } });
  });

  it('a node back (new bootID) is marked, and succeeds only after minHealthySeconds', () => {
    const status: RemediationStatus = { phase: 'Waiting', history: [attempt()] };
    const back = node({ ready: 'True', bootID: 'boot-2' });
    expect(decideLadder(input(status, { node: back }))).toEqual({
      kind: 'MarkRecovered',
      requeueAfterMs: 30_000,
    });
    expect(
      decideLadder(input(status, { node: back, recoveredSinceMs: T0 + 5000, now: T0 + 20_000 })),
    ).toEqual({ kind: 'Wait', requeueAfterMs: 15_000 });
    expect(
      decideLadder(input(status, { node: back, recoveredSinceMs: T0 + 5000, now: T0 + 35_000 })),
    ).toEqual({ kind: 'Succeed' });
  });

  it('a node that drops again before minHealthySeconds loses its mark; the step timeout still counts from the action', () => {
    const status: RemediationStatus = { phase: 'Waiting', history: [attempt()] };
    expect(
      decideLadder(
        input(status, {
          node: node({ ready: 'False' }),
          recoveredSinceMs: T0 + 5000,
          now: T0 + 10_000,
        }),
      ),
    ).toEqual({ kind: 'MarkNotRecovered', requeueAfterMs: 5000 });
    expect(
      decideLadder(
        input(status, {
          node: node({ ready: 'False' }),
          recoveredSinceMs: T0 + 5000,
          now: T0 + 60_000,
        }),
      ),
    ).toMatchObject({ kind: 'Act', at: { step: 0, attempt: 2 } });
  });

  it('terminal phases are done', () => {
    expect(
      decideLadder(input({ phase: 'Succeeded', history: [attempt({ result: 'Succeeded' })] })),
    ).toEqual({ kind: 'Done' });
    expect(decideLadder(input({ phase: 'Failed' }))).toEqual({ kind: 'Done' });
  });

  it('gives up with a clear message when status names a step the spec no longer has', () => {
    const d = decideLadder(input({ phase: 'Waiting', history: [attempt({ step: 7 })] }));
    expect(d).toMatchObject({
      kind: 'GiveUp',
      message: 'status refers to step 7, but spec.steps has 3 step(s)',
    });
  });
});

describe('cameBack', () => {
  it('needs Ready=True and a new boot or a Ready transition after the action', () => {
    const a = attempt();
    expect(cameBack(node({ ready: 'True' }), a)).toBe(false); // same boot, Ready since before the action
    expect(cameBack(node({ ready: 'True', bootID: 'boot-2' }), a)).toBe(true);
    expect(cameBack(node({ ready: 'True', readySinceMs: T0 + 1 }), a)).toBe(true);
    expect(cameBack(node({ ready: 'False', bootID: 'boot-2' }), a)).toBe(false);
    expect(cameBack(undefined, a)).toBe(false);
  });

  it('reads the bootID recorded with the intent', () => {
    expect(bootIDBefore(attempt())).toBe('boot-1');
    expect(bootIDBefore(attempt({ message: intentMessage('x', undefined) }))).toBeUndefined();
    expect(
      bootIDBefore(attempt({ message: `${intentMessage('x', 'b-9')}; Nova accepted reboot SOFT` })),
    ).toBe('b-9');
  });
});

describe('positions and action ids', () => {
  it('walks every attempt of every step once', () => {
    const seen: string[] = [];
    for (
      let p: ReturnType<typeof nextPosition> = { step: 0, attempt: 1 };
      p;
      p = nextPosition(spec.steps, p)
    )
      seen.push(actionIdFor('uid', p));
    expect(seen).toEqual([
      'uid/step-0/attempt-1',
      'uid/step-0/attempt-2',
      'uid/step-1/attempt-1',
      'uid/step-2/attempt-1',
    ]);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
