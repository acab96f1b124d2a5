import { progressLadder } from '@noderepair/core/health';
import { describe, expect, it } from 'vitest';
import type { Attempt, RemediationSpec, RemediationStatus } from '../api/index.js';
import {
  actionIdFor,
  cameBack,
  decideLadder,
  FAILED_ATTEMPT_BACKOFF_MS,
  intentOf,
  nextPosition,
  toCoreLadder,
  WAIT_RECHECK_MS,
  type LadderInput,
} from './ladder.js';
import type { NodeView } from './node-view.js';

const T0 = Date.parse('2026-12-02T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const UID = 'uid-1';

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

/** An attempt Nova accepted at T0 + 1 s. */
const attempt = (over: Partial<Attempt> = {}): Attempt => ({
  step: 0,
  type: 'SoftReboot',
  attempt: 1,
  startTime: iso(T0),
  acceptedTime: iso(T0 + 1000),
  result: 'InProgress',
  message: 'SoftReboot of server x; Nova accepted reboot SOFT of server x',
  ...over,
});

const waiting = (a: Partial<Attempt> = {}): RemediationStatus => ({
  phase: 'Waiting',
  bootID: 'boot-1',
  history: [attempt(a)],
});

const input = (
  status: RemediationStatus | undefined,
  over: Partial<LadderInput> = {},
): LadderInput => ({
  uid: UID,
  spec,
  status,
  node: node(),
  recoveredSinceMs: undefined,
  now: T0 + 2000,
  // At a timeout: the node silent since the action, Nova asked then says the server runs
  // (the evidence rules themselves are deadline.test.ts's).
  evidence: NOVA_SAYS_RUNNING,
  ...over,
});

const NOVA_SAYS_RUNNING = {
  lease: { kind: 'None', why: 'no Lease' },
  server: { kind: 'On' },
} as const;
const SILENT_RUNNING = '; it has not reported since and Nova reports its server running';

describe('decideLadder (core progressLadder over the OpenStackRemediation status)', () => {
  it('drains first when enabled, else acts on step 0 attempt 1 with its stable action id', () => {
    const first = {
      at: { step: 0, attempt: 1 },
      step: spec.steps[0],
      actionId: `${UID}/step-0/attempt-1`,
    };
    expect(decideLadder(input(undefined))).toEqual({ kind: 'Drain', first });
    expect(decideLadder(input({ phase: 'Draining' }))).toEqual({ kind: 'Drain', first });
    expect(
      decideLadder(
        input(undefined, { spec: { ...spec, drain: { ...spec.drain, enabled: false } } }),
      ),
    ).toEqual({ kind: 'Act', ...first });
  });

  it('replays an intent whose completion was not recorded (same position: same action id)', () => {
    const d = decideLadder(
      input({
        phase: 'Remediating',
        history: [attempt({ attempt: 2, acceptedTime: undefined })],
      }),
    );
    expect(d).toEqual({
      kind: 'Replay',
      at: { step: 0, attempt: 2 },
      step: spec.steps[0],
      actionId: `${UID}/step-0/attempt-2`,
    });
  });

  it('waits inside the step timeout, counted from when Nova accepted the action', () => {
    expect(decideLadder(input(waiting(), { now: T0 + 58_000 }))).toEqual({
      kind: 'Wait',
      requeueAfterMs: 3000,
    });
    // Not yet timed out at startTime + 60 s: the clock started at acceptance.
    expect(decideLadder(input(waiting(), { now: T0 + 60_500 }))).toEqual({
      kind: 'Wait',
      requeueAfterMs: 500,
    });
    // An object written before acceptedTime existed counts from startTime.
    expect(
      decideLadder(input(waiting({ acceptedTime: undefined }), { now: T0 + 60_000 })),
    ).toMatchObject({ kind: 'Act', at: { step: 0, attempt: 2 } });
  });

  it('retries within the step, then escalates (Rebuild with its image), then gives up', () => {
    const timedOut = (a: Partial<Attempt>) =>
      decideLadder(input(waiting(a), { now: T0 + 600_001 + 1000 }));
    expect(timedOut({})).toEqual({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      step: spec.steps[0],
      actionId: `${UID}/step-0/attempt-2`,
      ended: {
        result: 'TimedOut',
        message: `node n1 not Ready 60s after SoftReboot (Ready=Unknown)${SILENT_RUNNING}`,
      },
    });
    expect(timedOut({ attempt: 2 })).toMatchObject({
      kind: 'Act',
      at: { step: 1, attempt: 1 },
      step: { type: 'HardReboot' },
      actionId: `${UID}/step-1/attempt-1`,
    });
    expect(timedOut({ step: 1, type: 'HardReboot' })).toMatchObject({
      kind: 'Act',
      at: { step: 2, attempt: 1 },
      step: { type: 'Rebuild', imageRef: 'img-1' },
    });
    const gaveUp = timedOut({ step: 2, type: 'Rebuild' });
    expect(gaveUp).toMatchObject({ kind: 'GiveUp', ended: { result: 'TimedOut' } });
    expect(gaveUp.kind === 'GiveUp' && gaveUp.message).toBe(
      `remediation ladder exhausted (SoftReboot x2, HardReboot, Rebuild); last attempt TimedOut: node n1 not Ready 600s after Rebuild (Ready=Unknown)${SILENT_RUNNING}`,
    );
  });

  it('after a failed Nova call waits the backoff, then uses up the attempt', () => {
    const failed = attempt({
      result: 'Failed',
      acceptedTime: undefined,
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
    ).toMatchObject({
      kind: 'Act',
      at: { step: 0, attempt: 2 },
      ended: { result: 'Failed', message: 'ServerNotFound: gone' },
    });
  });

  it('a node back with a new bootID is marked from the acceptance, and succeeds only after minHealthySeconds', () => {
    const back = node({ ready: 'True', bootID: 'boot-2' });
    // Ready since before the action, but a new boot: healthy since Nova accepted the action.
    expect(decideLadder(input(waiting(), { node: back }))).toEqual({
      kind: 'MarkRecovered',
      healthySinceMs: T0 + 1000,
      requeueAfterMs: 29_000,
    });
    // A Ready transition after the action starts the clock there.
    expect(
      decideLadder(
        input(waiting(), { node: { ...back, readySinceMs: T0 + 10_000 }, now: T0 + 12_000 }),
      ),
    ).toEqual({ kind: 'MarkRecovered', healthySinceMs: T0 + 10_000, requeueAfterMs: 28_000 });
    expect(
      decideLadder(input(waiting(), { node: back, recoveredSinceMs: T0 + 5000, now: T0 + 20_000 })),
    ).toEqual({ kind: 'Wait', requeueAfterMs: 15_000 });
    expect(
      decideLadder(input(waiting(), { node: back, recoveredSinceMs: T0 + 5000, now: T0 + 35_000 })),
    ).toEqual({ kind: 'Succeed' });
  });

  it('Ready with the same bootID and no Ready transition since the action is not back', () => {
    expect(
      decideLadder(input(waiting(), { node: node({ ready: 'True' }), now: T0 + 10_000 })),
    ).toEqual({ kind: 'Wait', requeueAfterMs: WAIT_RECHECK_MS });
    // The step's deadline (60 s after acceptance at T0 + 1 s) comes before the next recheck.
    expect(
      decideLadder(input(waiting(), { node: node({ ready: 'True' }), now: T0 + 45_000 })),
    ).toEqual({ kind: 'Wait', requeueAfterMs: 16_000 });
  });

  it('a node that drops again before minHealthySeconds loses its mark; the step timeout still counts', () => {
    const notReady = node({ ready: 'False' });
    expect(
      decideLadder(
        input(waiting(), { node: notReady, recoveredSinceMs: T0 + 5000, now: T0 + 10_000 }),
      ),
    ).toEqual({ kind: 'MarkNotRecovered', requeueAfterMs: WAIT_RECHECK_MS });
    expect(
      decideLadder(
        input(waiting(), { node: notReady, recoveredSinceMs: T0 + 5000, now: T0 + 61_000 }),
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
    const d = decideLadder(input(waiting({ step: 7 })));
    expect(d).toMatchObject({
      kind: 'GiveUp',
      message: 'status refers to step 7, but spec.steps has 3 step(s)',
    });
  });

  it('a hand-edited TimedOut entry outside a terminal phase moves on along the ladder', () => {
    const d = decideLadder(
      input({ phase: 'Waiting', history: [attempt({ attempt: 2, result: 'TimedOut' })] }),
    );
    expect(d).toMatchObject({
      kind: 'Act',
      at: { step: 1, attempt: 1 },
      ended: { result: 'TimedOut' },
    });
  });
});

describe('the status as core ladder state', () => {
  it('spec.steps become core ladder steps: retries + 1 attempts, imageRef as the Rebuild image', () => {
    expect(toCoreLadder(spec.steps)).toEqual([
      { action: 'SoftReboot', timeoutMs: 60_000, attempts: 2 },
      { action: 'HardReboot', timeoutMs: 120_000, attempts: 1 },
      { action: 'Rebuild', timeoutMs: 600_000, attempts: 1, image: 'img-1' },
    ]);
  });

  it('the last history entry is an intent: open while Remediating, completed at acceptance while Waiting, failed with its completion time', () => {
    const a = attempt({ step: 2, type: 'Rebuild' });
    const base = {
      actionId: `${UID}/step-2/attempt-1`,
      action: 'Rebuild',
      step: 2,
      attempt: 1,
      issuedAt: T0,
      image: 'img-1',
    };
    expect(intentOf(UID, spec, 'Remediating', a, T0 + 5000)).toEqual(base);
    expect(intentOf(UID, spec, 'Waiting', a, T0 + 5000)).toEqual({
      ...base,
      completedAt: T0 + 1000,
      result: 'Succeeded',
    });
    expect(
      intentOf(
        UID,
        spec,
        'Remediating',
        { ...a, result: 'Failed', completionTime: iso(T0 + 3000), message: 'Conflict: locked' },
        T0 + 5000,
      ),
    ).toEqual({ ...base, completedAt: T0 + 3000, result: 'Failed', message: 'Conflict: locked' });
  });

  it('decisions agree with core progressLadder on the same state (the rules are core’s)', () => {
    const ladder = toCoreLadder(spec.steps);
    for (const now of [T0 + 2000, T0 + 30_000, T0 + 61_000, T0 + 62_000]) {
      for (const back of [false, true]) {
        const n = back ? node({ ready: 'True', bootID: 'boot-2' }) : node();
        const d = decideLadder(input(waiting(), { node: n, now }));
        const v = progressLadder({
          ladder,
          intent: intentOf(UID, spec, 'Waiting', attempt(), now),
          nodeBack: back,
          readySinceMs: n.readySinceMs,
          minHealthyPeriodMs: spec.minHealthySeconds * 1000,
          retryBackoffMs: FAILED_ATTEMPT_BACKOFF_MS,
          actionIdFor: (p) => actionIdFor(UID, p),
          now,
        });
        const expected = {
          AwaitingReady: 'Wait',
          Verifying: 'MarkRecovered',
          Succeeded: 'Succeed',
          Next: 'Act',
          Exhausted: 'GiveUp',
          BackingOff: 'Wait',
          Replay: 'Replay',
        }[v.kind];
        expect(d.kind, `now=+${now - T0} back=${back}`).toBe(expected);
        if (v.kind === 'Next' && d.kind === 'Act') expect(d.actionId).toBe(v.intent.actionId);
      }
    }
  });
});

describe('cameBack', () => {
  it('needs Ready=True and a bootID other than status.bootID, or a Ready transition after the action', () => {
    expect(cameBack(node({ ready: 'True' }), 'boot-1', T0)).toBe(false); // same boot, Ready since before
    expect(cameBack(node({ ready: 'True', bootID: 'boot-2' }), 'boot-1', T0)).toBe(true);
    expect(cameBack(node({ ready: 'True', readySinceMs: T0 + 1 }), 'boot-1', T0)).toBe(true);
    expect(cameBack(node({ ready: 'False', bootID: 'boot-2' }), 'boot-1', T0)).toBe(false);
    // No bootID recorded (the Node was unreadable when acting): only a Ready transition counts.
    expect(cameBack(node({ ready: 'True', bootID: 'boot-2' }), undefined, T0)).toBe(false);
    expect(cameBack(undefined, 'boot-1', T0)).toBe(false);
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
