// The remediation history in the state annotation: appended by decideRepair where a repair
// ends (Succeeded, or Failed when the ladder is used up), capped at HISTORY_LIMIT, oldest
// first, read back after every "restart" (each decision here starts from the parsed
// annotation text, as a controller restarted at that moment would), backwards compatible
// with states written before it, and bounded in size.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import {
  appendHistory,
  CAUSE_MESSAGE_MAX_BYTES,
  clipMessage,
  HISTORY_LIMIT,
  type HistoryEntry,
} from './history.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { parseRepairState, serializeRepairState, type RepairState } from './state.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const p = policy({
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '1m' }],
  minHealthyPeriod: '2m',
  retryBackoff: '1m',
  ladder: [
    { action: 'SoftReboot', timeout: '5m' },
    { action: 'HardReboot', timeout: '10m', attempts: 2 },
  ],
  drain: { enabled: false },
});

function parsed(text: string): RepairState | undefined {
  const r = parseRepairState(text);
  if (either.isLeft(r)) throw new Error(r.left);
  return r.right;
}

function entry(i: number, extra: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    id: `old/${i}`,
    cause: { kind: 'KubeletUnreachable', message: 'Kubelet stopped posting node status.' },
    startedAt: T0 - (10 - i) * H,
    endedAt: T0 - (10 - i) * H + 20 * MIN,
    outcome: 'Succeeded',
    steps: [{ action: 'SoftReboot', attempts: 1, result: 'Succeeded' }],
    ...extra,
  };
}

/**
 * Drives node `a` every 10 s from `from` to `to`: the node is `down` (since `downSince`)
 * until `fixed(d)` says an action fixed it. Every decision starts from the annotation text
 * the previous one left (a restart at every step); Remediate actions complete at once with
 * `result(attempt, action)`. Returns the last persisted text and the decisions.
 */
function drive(opts: {
  text: string | undefined;
  from: number;
  to: number;
  down: ReadyText;
  downSince: number;
  fixes: (action: string, attempt: number) => boolean;
  fails?: (action: string, attempt: number) => boolean;
}): { text: string | undefined; decisions: RepairDecision[] } {
  let text = opts.text;
  let fixedAt: number | undefined;
  const decisions: RepairDecision[] = [];
  for (let at = opts.from; at <= opts.to; at += 10 * S) {
    const node =
      fixedAt === undefined
        ? buildNode({ name: 'a', ready: opts.down, since: opts.downSince, heartbeat: at })
        : buildNode({ name: 'a', ready: 'ready', since: fixedAt, heartbeat: at });
    const d = decideRepair(
      { nodeName: 'a', node },
      text === undefined ? undefined : parsed(text),
      p,
      at,
    );
    decisions.push(d);
    let next = d.nextState;
    for (const a of d.actions) {
      if (a.type !== 'Remediate' || next === undefined) continue;
      const failed = opts.fails?.(a.action, a.attempt) === true;
      next = recordOutcome(next, {
        actionId: a.actionId,
        result: failed ? 'Failed' : 'Succeeded',
        at,
        ...(failed ? { message: 'provider said no' } : {}),
      });
      if (!failed && opts.fixes(a.action, a.attempt)) fixedAt = at + 30 * S;
    }
    if (next !== undefined) text = serializeRepairState(next);
  }
  return { text, decisions };
}

describe('remediation history through decideRepair', () => {
  it('appends each ended repair with its cause, steps and outcome, keeps the last 5, oldest first', () => {
    const seeded: RepairState = {
      v: 1,
      phase: 'Healthy',
      since: T0 - H,
      episodes: [],
      history: [1, 2, 3, 4].map((i) => entry(i)),
    };
    // Repair 1: SoftReboot is accepted but does not help (times out), HardReboot #1 fails at
    // the provider, HardReboot #2 fixes the node.
    const one = drive({
      text: serializeRepairState(seeded),
      from: T0,
      to: T0 + H,
      down: 'runtimeDown',
      downSince: T0,
      fails: (action, attempt) => action === 'HardReboot' && attempt === 1,
      fixes: (action, attempt) => action === 'HardReboot' && attempt === 2,
    });
    const afterOne = parsed(one.text!)!;
    expect(afterOne.phase).toBe('Healthy');
    expect(afterOne.history).toHaveLength(5);
    const started = one.decisions.find((d) => d.actions.some((a) => a.type === 'Cordon'))!;
    const ended = one.decisions.find(
      (d) => d.previousPhase === 'Verifying' && d.phase === 'Healthy',
    )!;
    expect(afterOne.history![4]).toEqual({
      id: `a/${started.at}`,
      cause: { kind: 'ContainerRuntimeDown', message: 'container runtime is down' },
      startedAt: started.at,
      endedAt: ended.at,
      outcome: 'Succeeded',
      steps: [
        { action: 'SoftReboot', attempts: 1, result: 'TimedOut' },
        { action: 'HardReboot', attempts: 2, result: 'Succeeded' },
      ],
    });
    // lastRemediation stays beside the history (flap escalation reads it).
    expect(afterOne.lastRemediation).toEqual({
      id: `a/${started.at}`,
      endedAt: ended.at,
      step: 1,
      result: 'Succeeded',
    });
    expect(afterOne.history!.map((h) => h.id)).toEqual([
      'old/1',
      'old/2',
      'old/3',
      'old/4',
      `a/${started.at}`,
    ]);

    // Repair 2, hours later: nothing helps, the ladder is used up, the repair gives up.
    const two = drive({
      text: one.text,
      from: T0 + 3 * H,
      to: T0 + 4 * H,
      down: 'plegUnhealthy',
      downSince: T0 + 3 * H,
      fixes: () => false,
    });
    const afterTwo = parsed(two.text!)!;
    expect(afterTwo.phase).toBe('Failed');
    expect(two.decisions.some((d) => d.actions.some((a) => a.type === 'GiveUp'))).toBe(true);
    expect(afterTwo.history).toHaveLength(HISTORY_LIMIT);
    // The oldest dropped out; the new one is last.
    expect(afterTwo.history!.map((h) => h.id).slice(0, 4)).toEqual([
      'old/2',
      'old/3',
      'old/4',
      `a/${started.at}`,
    ]);
    const failed = afterTwo.history![4]!;
    expect(failed).toMatchObject({
      cause: { kind: 'PLEGUnhealthy' },
      outcome: 'Failed',
      steps: [
        { action: 'SoftReboot', attempts: 1, result: 'TimedOut' },
        { action: 'HardReboot', attempts: 2, result: 'TimedOut' },
      ],
    });
    // The PLEG message is longer than the cap: clipped, marked.
    expect(failed.cause.message).toMatch(/^PLEG is not healthy: pleg was last seen active .*…$/);
    expect(Buffer.byteLength(failed.cause.message!)).toBeLessThanOrEqual(CAUSE_MESSAGE_MAX_BYTES);
    expect(afterTwo.lastRemediation).toMatchObject({ id: failed.id, result: 'Failed', step: 1 });
    expect(failed.endedAt - failed.startedAt).toBeGreaterThan(15 * MIN);
  });

  it('a repair that ends in its first step records one step', () => {
    const r = drive({
      text: undefined,
      from: T0,
      to: T0 + 30 * MIN,
      down: 'runtimeDown',
      downSince: T0,
      fixes: () => true,
    });
    const s = parsed(r.text!)!;
    expect(s.history).toHaveLength(1);
    expect(s.history![0]!.steps).toEqual([
      { action: 'SoftReboot', attempts: 1, result: 'Succeeded' },
    ]);
  });
});

describe('appendHistory', () => {
  it('keeps the newest HISTORY_LIMIT, oldest first', () => {
    let h: HistoryEntry[] | undefined;
    for (let i = 1; i <= 7; i++) h = appendHistory(h, entry(i));
    expect(HISTORY_LIMIT).toBe(5);
    expect(h!.map((e) => e.id)).toEqual(['old/3', 'old/4', 'old/5', 'old/6', 'old/7']);
  });
});

describe('history in the state annotation', () => {
  it('a state written before the history existed still decodes, and writes back unchanged', () => {
    const old =
      '{"v":1,"phase":"Verifying","since":"2026-01-01T01:10:00.001Z","episodes":["2026-01-01T01:00:00.000Z"],' +
      '"remediation":{"id":"w1/1767229800001","startedAt":"2026-01-01T01:10:00.001Z","cause":"KubeletUnreachable","step":0,"attempt":1,"cordoned":true,' +
      '"intent":{"actionId":"w1/1767229800001/SoftReboot-1","action":"SoftReboot","step":0,"attempt":1,"issuedAt":"2026-01-01T01:10:00.001Z","completedAt":"2026-01-01T01:10:03.000Z","result":"Succeeded"}},' +
      '"lastRemediation":{"id":"w1/1767200000000","endedAt":"2025-12-31T17:00:00.000Z","step":0,"result":"Succeeded"}}';
    const s = parsed(old)!;
    expect(s.history).toBeUndefined();
    expect(s.remediation?.tried).toBeUndefined();
    expect(s.phase).toBe('Verifying');
    expect(serializeRepairState(s)).toBe(old);
  });

  it('round-trips a history with RFC 3339 times', () => {
    const s: RepairState = { v: 1, phase: 'Healthy', since: T0, episodes: [], history: [entry(1)] };
    const text = serializeRepairState(s);
    expect(text).toContain(`"startedAt":"${new Date(entry(1).startedAt).toISOString()}"`);
    expect(parsed(text)).toEqual(s);
  });

  it('a garbled history loses the bad entries, not the state', () => {
    const good = JSON.parse(
      serializeRepairState({
        v: 1,
        phase: 'Healthy',
        since: T0,
        episodes: [],
        history: [entry(1)],
      }),
    ) as { history: unknown[] };
    const state = (history: unknown) =>
      JSON.stringify({
        v: 1,
        phase: 'Unhealthy',
        since: '2026-01-01T00:00:00.000Z',
        episodes: [],
        history,
      });
    const mixed = parsed(
      state([good.history[0], { id: 3 }, 'x', { ...(good.history[0] as object), endedAt: 'soon' }]),
    )!;
    expect(mixed.phase).toBe('Unhealthy');
    expect(mixed.history).toEqual([entry(1)]);
    const notAList = parsed(state({ id: 'x' }))!;
    expect(notAList.phase).toBe('Unhealthy');
    expect(notAList.history).toEqual([]);
    // What was kept is what the next write stores.
    expect(serializeRepairState(mixed)).toBe(
      state([good.history[0]]).replace(
        '"since":"2026-01-01T00:00:00.000Z"',
        `"since":"${new Date(T0).toISOString()}"`,
      ),
    );
  });

  it(`${HISTORY_LIMIT} entries of the worst case take about 4 KiB`, () => {
    // The longest Node name (253), the longest cause kind, a message made of what JSON and
    // UTF-8 make longest (quotes, 4-byte characters), a ladder of every action (each at most
    // once: policy.ts), each with a two-digit attempt count, all timed out.
    const node = 'n'.repeat(253);
    const ugly = '"\\😀é'.repeat(100);
    const actions = [
      'SoftReboot',
      'HardReboot',
      'Rebuild',
      'Command',
      'Webhook',
      'Replace',
    ] as const;
    const worst = (i: number): HistoryEntry => ({
      id: `${node}/${T0 + i * H}`,
      cause: { kind: 'RuntimeNetworkNotReady', message: clipMessage(ugly) },
      startedAt: T0 + i * H,
      endedAt: T0 + i * H + 99 * H,
      outcome: 'Failed',
      steps: actions.map((action) => ({ action, attempts: 99, result: 'TimedOut' as const })),
    });
    let h: HistoryEntry[] | undefined;
    for (let i = 0; i < 2 * HISTORY_LIMIT; i++) h = appendHistory(h, worst(i));
    const s: RepairState = { v: 1, phase: 'Failed', since: T0, episodes: [], history: h! };
    const withHistory = Buffer.byteLength(serializeRepairState(s));
    const without = Buffer.byteLength(serializeRepairState({ ...s, history: [] }));
    // 4179 bytes when written; a typical entry (a 63-character name, 2 steps) takes ~400.
    expect(withHistory - without).toBeLessThan(4.25 * 1024);
  });
});

describe('clipMessage', () => {
  it('keeps a short message as it is, without control characters', () => {
    expect(clipMessage('container runtime is down')).toBe('container runtime is down');
    expect(clipMessage('a\nb\u0000c\t')).toBe('a b c');
  });

  it('cuts at the byte budget of its JSON form, never inside a character', () => {
    for (const text of ['x'.repeat(500), '"'.repeat(500), '😀'.repeat(500), 'é'.repeat(500)]) {
      const c = clipMessage(text, 40);
      expect(c.endsWith('…')).toBe(true);
      // JSON.stringify adds two quotes; escapes and multi-byte characters are counted.
      expect(Buffer.byteLength(JSON.stringify(c)) - 2).toBeLessThanOrEqual(40);
      expect(c).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    }
    expect(clipMessage('😀'.repeat(20), 40)).toBe(`${'😀'.repeat(9)}…`);
  });
});
