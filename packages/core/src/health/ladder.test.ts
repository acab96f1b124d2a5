import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { decideRepair, recordOutcome } from './decide.js';
import {
  advanceLadder,
  ladderIntent,
  nextLadderPosition,
  progressLadder,
  type LadderIntent,
  type LadderPosition,
  type LadderProgressInput,
} from './ladder.js';
import { resolveRepairPolicy, type LadderStep, type RepairPolicy } from './policy.js';

const S = 1000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

const ladder: LadderStep[] = [
  { action: 'SoftReboot', timeoutMs: 60 * S, attempts: 2 },
  { action: 'HardReboot', timeoutMs: 120 * S, attempts: 1 },
  { action: 'Rebuild', timeoutMs: 600 * S, attempts: 1, image: 'img-1' },
];
const idFor = (at: LadderPosition, step: LadderStep) => `r/${at.step}/${step.action}-${at.attempt}`;

const intent = (over: Partial<LadderIntent> = {}): LadderIntent => ({
  actionId: 'r/0/SoftReboot-1',
  action: 'SoftReboot',
  step: 0,
  attempt: 1,
  issuedAt: T0,
  completedAt: T0 + S,
  result: 'Succeeded',
  ...over,
});

const input = (over: Partial<LadderProgressInput> = {}): LadderProgressInput => ({
  ladder,
  intent: intent(),
  nodeBack: false,
  minHealthyPeriodMs: 30 * S,
  retryBackoffMs: 10 * S,
  actionIdFor: idFor,
  now: T0 + 2 * S,
  ...over,
});

describe('ladder positions', () => {
  it('walks every attempt of every step once, in order, and then is used up', () => {
    const seen: string[] = [];
    for (
      let at: LadderPosition | undefined = { step: 0, attempt: 1 };
      at !== undefined;
      at = nextLadderPosition(ladder, at)
    )
      seen.push(`${at.step}.${at.attempt}`);
    expect(seen).toEqual(['0.1', '0.2', '1.1', '2.1']);
  });

  it('a position whose step the ladder no longer has moves to the next step', () => {
    expect(nextLadderPosition(ladder, { step: 1, attempt: 5 })).toEqual({ step: 2, attempt: 1 });
    expect(nextLadderPosition(ladder, { step: 9, attempt: 1 })).toBeUndefined();
  });

  it('an intent carries the Rebuild image, and no image for other steps', () => {
    expect(ladderIntent(ladder[2]!, { step: 2, attempt: 1 }, 'id', T0)).toEqual({
      actionId: 'id',
      action: 'Rebuild',
      step: 2,
      attempt: 1,
      issuedAt: T0,
      image: 'img-1',
    });
    expect(ladderIntent(ladder[0]!, { step: 0, attempt: 1 }, 'id', T0)).not.toHaveProperty('image');
  });
});

describe('progressLadder', () => {
  it('replays an intent that has no completion, whatever the node shows', () => {
    const open = intent({ completedAt: undefined, result: undefined });
    expect(progressLadder(input({ intent: open, nodeBack: true, now: T0 + 3600 * S }))).toEqual({
      kind: 'Replay',
      intent: open,
    });
  });

  it('after a failed provider call waits the backoff from the completion, then uses up the attempt', () => {
    const failed = intent({ result: 'Failed', message: 'Nova answered 503' });
    expect(progressLadder(input({ intent: failed, now: T0 + 5 * S }))).toEqual({
      kind: 'BackingOff',
      ended: { result: 'Failed', message: 'Nova answered 503' },
      retryAt: T0 + 11 * S,
    });
    // Even a node that looks back does not turn a failed call into a success.
    expect(progressLadder(input({ intent: failed, nodeBack: true, now: T0 + 11 * S }))).toEqual({
      kind: 'Next',
      intent: {
        actionId: 'r/0/SoftReboot-2',
        action: 'SoftReboot',
        step: 0,
        attempt: 2,
        issuedAt: T0 + 11 * S,
      },
      escalated: false,
      ended: { result: 'Failed', message: 'Nova answered 503' },
    });
  });

  it('waits for the node until the step timeout, counted from the completion', () => {
    expect(progressLadder(input({ now: T0 + 60 * S }))).toEqual({
      kind: 'AwaitingReady',
      deadline: T0 + 61 * S,
      timeoutMs: 60 * S,
    });
    expect(progressLadder(input({ now: T0 + 61 * S }))).toMatchObject({
      kind: 'Next',
      intent: { step: 0, attempt: 2 },
      ended: { result: 'TimedOut', timeoutMs: 60 * S },
    });
  });

  it('retries within the step, then escalates to the next step, then is exhausted', () => {
    const timedOut = (at: Partial<LadderIntent>) =>
      progressLadder(input({ intent: intent(at), now: T0 + 3600 * S }));
    expect(timedOut({ attempt: 2, actionId: 'r/0/SoftReboot-2' })).toEqual({
      kind: 'Next',
      intent: {
        actionId: 'r/1/HardReboot-1',
        action: 'HardReboot',
        step: 1,
        attempt: 1,
        issuedAt: T0 + 3600 * S,
      },
      escalated: true,
      ended: { result: 'TimedOut', timeoutMs: 60 * S },
    });
    expect(timedOut({ step: 1, action: 'HardReboot' })).toMatchObject({
      kind: 'Next',
      intent: { action: 'Rebuild', image: 'img-1', step: 2, attempt: 1 },
      escalated: true,
    });
    expect(timedOut({ step: 2, action: 'Rebuild', image: 'img-1' })).toEqual({
      kind: 'Exhausted',
      ended: { result: 'TimedOut', timeoutMs: 600 * S },
    });
  });

  it('back: verifying from the later of the Ready transition and the completion, success after the minimum healthy period', () => {
    // Ready since before the action: the period counts from the completion.
    expect(progressLadder(input({ nodeBack: true, readySinceMs: T0 - 600 * S }))).toEqual({
      kind: 'Verifying',
      healthySince: T0 + S,
      okAt: T0 + 31 * S,
    });
    // Ready transition after the completion counts from the transition.
    expect(
      progressLadder(input({ nodeBack: true, readySinceMs: T0 + 20 * S, now: T0 + 25 * S })),
    ).toEqual({ kind: 'Verifying', healthySince: T0 + 20 * S, okAt: T0 + 50 * S });
    // A persisted healthySince wins over what the node shows now.
    expect(
      progressLadder(
        input({
          nodeBack: true,
          readySinceMs: T0 + 40 * S,
          healthySince: T0 + 5 * S,
          now: T0 + 35 * S,
        }),
      ),
    ).toEqual({ kind: 'Succeeded', healthySince: T0 + 5 * S });
  });

  it('back but a minimum healthy period of 0 succeeds at once, even past the step timeout', () => {
    expect(
      progressLadder(
        input({
          nodeBack: true,
          readySinceMs: T0 - 600 * S,
          minHealthyPeriodMs: 0,
          now: T0 + 3600 * S,
        }),
      ),
    ).toEqual({ kind: 'Succeeded', healthySince: T0 + S });
    // Without a known Ready transition the period starts now.
    expect(progressLadder(input({ nodeBack: true, now: T0 + 100 * S }))).toEqual({
      kind: 'Verifying',
      healthySince: T0 + 100 * S,
      okAt: T0 + 130 * S,
    });
  });

  it('a step the ladder no longer has gives no time: the attempt is over at once', () => {
    expect(progressLadder(input({ intent: intent({ step: 7 }), now: T0 + 2 * S }))).toMatchObject({
      kind: 'Exhausted',
      ended: { result: 'TimedOut', timeoutMs: 0 },
    });
  });

  it('advanceLadder never reuses an action id across the ladder', () => {
    const ids = new Set<string>(['r/0/SoftReboot-1']);
    let from: LadderPosition = { step: 0, attempt: 1 };
    for (;;) {
      const v = advanceLadder(ladder, from, { result: 'TimedOut', timeoutMs: 1 }, idFor, T0);
      if (v.kind === 'Exhausted') break;
      expect(ids.has(v.intent.actionId)).toBe(false);
      ids.add(v.intent.actionId);
      from = v.intent;
    }
    expect(ids.size).toBe(4);
  });
});

describe('a Rebuild step in core repair (decideRepair through the shared rules)', () => {
  const policy = (input: unknown): RepairPolicy => {
    const p = resolveRepairPolicy(input);
    if (either.isLeft(p)) throw new Error(p.left);
    return p.right;
  };
  const p = policy({
    ladder: [
      { action: 'HardReboot', timeout: '5m' },
      { action: 'Rebuild', timeout: '20m', image: 'ubuntu-24.04' },
    ],
    drain: { enabled: false },
    retryBackoff: '1m',
  });
  const notReady = (at: number) => ({
    nodeName: 'n1',
    node: buildNode({ name: 'n1', ready: 'runtimeDown', since: at }),
  });

  it('escalates from HardReboot to Rebuild with the image, replays it with the image, and gives up after it', () => {
    const start = decideRepair(notReady(T0), undefined, p, T0 + 11 * 60 * S);
    const hard = start.actions.find((a) => a.type === 'Remediate');
    expect(hard).toMatchObject({ action: 'HardReboot', attempt: 1 });
    expect(hard).not.toHaveProperty('image');
    const afterHard = recordOutcome(start.nextState!, {
      actionId: (hard as { actionId: string }).actionId,
      result: 'Succeeded',
      at: T0 + 11 * 60 * S,
    });

    const t1 = T0 + 17 * 60 * S;
    const esc = decideRepair(notReady(T0), afterHard, p, t1);
    expect(esc.reason).toBe('escalating to Rebuild');
    const rebuild = esc.actions[0];
    expect(rebuild).toMatchObject({
      type: 'Remediate',
      action: 'Rebuild',
      image: 'ubuntu-24.04',
      step: 1,
      attempt: 1,
      replay: false,
    });
    expect(esc.nextState?.remediation?.intent).toMatchObject({
      action: 'Rebuild',
      image: 'ubuntu-24.04',
      issuedAt: t1,
    });

    // The controller died before recording the outcome: the same id, the same image.
    const replay = decideRepair(notReady(T0), esc.nextState, p, t1 + 60 * S);
    expect(replay.actions).toEqual([
      expect.objectContaining({
        type: 'Remediate',
        action: 'Rebuild',
        image: 'ubuntu-24.04',
        actionId: (rebuild as { actionId: string }).actionId,
        replay: true,
      }),
    ]);

    const done = recordOutcome(replay.nextState!, {
      actionId: (rebuild as { actionId: string }).actionId,
      result: 'Succeeded',
      at: t1 + 61 * S,
    });
    const gaveUp = decideRepair(notReady(T0), done, p, t1 + 61 * S + 20 * 60 * S);
    expect(gaveUp.phase).toBe('Failed');
    expect(gaveUp.actions).toEqual([expect.objectContaining({ type: 'GiveUp' })]);
  });
});
