// The story lines of a repair's transitions (story.ts): one line each, at the right level, a
// hold logged when it begins and not at every recheck.
import { describe, expect, it } from 'vitest';
import { buildNode } from '../health/builders.js';
import { decideRepair, recordOutcome } from '../health/decide.js';
import { defaultRepairPolicy } from '../health/policy.js';
import { storyLines } from './story.js';

const MIN = 60_000;
const t0 = Date.parse('2026-01-01T00:00:00Z');
const policy = defaultRepairPolicy;
const obs = (ready: 'ready' | 'unknown', since: number) => ({
  nodeName: 'n1',
  node: buildNode({ name: 'n1', ready, since }),
});
const brief = (ls: ReturnType<typeof storyLines>) => ls.map((l) => `${l.level} ${l.msg}`);

describe('storyLines', () => {
  it('a hold once (warn), then started, verifying and succeeded (info) with the node and the action id', () => {
    const storm = {
      admitted: false as const,
      scope: 'in-flight' as const,
      reason: 'storm guard: 2 repairs in flight (maxInFlight 1)',
    };
    const held = decideRepair(obs('unknown', t0), undefined, policy, t0 + 11 * MIN, { storm });
    expect(brief(storyLines(held, undefined, undefined))).toEqual(['warn repair held']);
    const again = decideRepair(obs('unknown', t0), held.nextState, policy, t0 + 11.5 * MIN, {
      storm,
    });
    expect(storyLines(again, held.nextState, 'in-flight')).toEqual([]);

    const start = decideRepair(obs('unknown', t0), held.nextState, policy, t0 + 12 * MIN);
    const actionId = start.nextState?.remediation?.intent?.actionId;
    const started = storyLines(start, held.nextState, 'in-flight');
    expect(brief(started)).toEqual(['info no longer held', 'info repair started']);
    expect(started[1]?.fields).toMatchObject({
      node: 'n1',
      cause: 'KubeletUnreachable',
      actionId,
      action: 'SoftReboot',
    });

    const done = recordOutcome(start.nextState!, {
      actionId: actionId!,
      result: 'Succeeded',
      at: t0 + 12 * MIN + 5000,
    });
    const verifying = decideRepair(obs('ready', t0 + 13 * MIN), done, policy, t0 + 14 * MIN);
    expect(brief(storyLines(verifying, done, undefined))).toEqual([
      'info node Ready again: verifying',
    ]);
    const later = decideRepair(
      obs('ready', t0 + 13 * MIN),
      verifying.nextState,
      policy,
      t0 + 15 * MIN,
    );
    expect(storyLines(later, verifying.nextState, undefined)).toEqual([]);
    const healed = decideRepair(
      obs('ready', t0 + 13 * MIN),
      verifying.nextState,
      policy,
      t0 + 19 * MIN,
    );
    const ok = storyLines(healed, verifying.nextState, undefined);
    expect(brief(ok)).toEqual(['info repair succeeded']);
    expect(ok[0]?.fields).toMatchObject({ node: 'n1', actionId });
  });

  it('an attempt that times out on fresh evidence goes on at warn, naming the new and the previous action id', () => {
    const start = decideRepair(obs('unknown', t0), undefined, policy, t0 + 11 * MIN);
    const first = start.nextState!.remediation!.intent!.actionId;
    const done = recordOutcome(start.nextState!, {
      actionId: first,
      result: 'Failed',
      at: t0 + 11 * MIN + 1000,
      message: 'refused',
    });
    // A failed attempt is evidence: after the backoff the ladder moves on.
    let prev = done;
    let lines: ReturnType<typeof storyLines> = [];
    for (let m = 12; m < 40 && lines.length === 0; m++) {
      const d = decideRepair(obs('unknown', t0), prev, policy, t0 + m * MIN);
      lines = storyLines(d, prev, undefined);
      prev = d.nextState!;
    }
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    expect(lines[0]?.msg).toMatch(/^repair (tries again|escalates to the next step)$/);
    expect(lines[0]?.fields).toMatchObject({ node: 'n1', previousActionId: first });
    expect(lines[0]?.fields['actionId']).not.toBe(first);
  });
});
