import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { TestScheduler } from 'rxjs/testing';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordDrain, recordOutcome, type RepairDecision } from './decide.js';
import { defaultRepairPolicy, resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { runRepairLoop, type ActionExecutor, type TimedObservation } from './runner.js';
import { parseRepairState, serializeRepairState, type RepairState } from './state.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown = {}): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

function obsAt(
  at: number,
  name: string,
  ready: ReadyText,
  since: number,
  extra: Partial<Parameters<typeof buildNode>[0]> = {},
): TimedObservation {
  return { at, obs: { nodeName: name, node: buildNode({ name, ready, since, ...extra }) } };
}

/** Runs the loop in virtual time and returns every decision that did something or changed phase. */
function run(
  observations: TimedObservation[],
  p: RepairPolicy,
  execute?: ActionExecutor,
): RepairDecision[] {
  const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
  scheduler.maxFrames = Number.POSITIVE_INFINITY;
  const out: RepairDecision[] = [];
  let completed = false;
  runRepairLoop({
    policy: p,
    scheduler,
    observations,
    epochMs: T0,
    ...(execute ? { execute } : {}),
    horizonMs: 6 * H,
  }).subscribe({
    next: (d) => {
      // Fence checks (and, after a Replace, the DeleteNode step that asks the fence) repeat at
      // the recheck pace while a node is down; fence-decide.test.ts and replace.test.ts cover them.
      const acting = d.actions.some((a) => a.type !== 'Fence' && a.type !== 'DeleteNode');
      if (acting || d.phase !== d.previousPhase) out.push(d);
    },
    complete: () => {
      completed = true;
    },
  });
  scheduler.flush();
  expect(completed).toBe(true);
  return out;
}

const summary = (ds: RepairDecision[]) =>
  ds.map(
    (d) =>
      `${(d.at - T0) / S}s ${d.phase} ${d.actions.map((a) => (a.type === 'Remediate' ? `${a.type}:${a.action}#${a.attempt}${a.replay ? '(replay)' : ''}` : a.type)).join(',')}`,
  );

describe('decideRepair through time (virtual)', () => {
  it('kubelet stops and never returns: waits the timeout, then climbs the whole ladder, then gives up', () => {
    const d = run([obsAt(T0, 'a', 'ready', T0), obsAt(T0 + H, 'a', 'unknown', T0 + H)], policy());
    // 10 min Unknown (strictly more) -> +1 ms; soft reboot 10 min; hard reboot 2 x 15 min; the
    // default ladder has no Replace (an explicit opt-in), so the node is given up after that.
    // (Verifying is entered when the outcome is recorded, inside the same pass.)
    expect(summary(d)).toEqual([
      '3600s Suspect ',
      '4200.001s Remediating Cordon,Drain,Remediate:SoftReboot#1',
      '4800.001s Remediating Remediate:HardReboot#1',
      '5700.001s Remediating Remediate:HardReboot#2',
      '6600.001s Failed GiveUp',
    ]);
    const drain = d[1]!.actions[1]!;
    expect(drain).toMatchObject({ type: 'Drain', unreachable: true, outOfServiceAfterMs: 5 * MIN });
    expect(d[1]!.cause.kind).toBe('KubeletUnreachable');
  });

  it('runtime down, reboot fixes it: Ready for the minimum healthy period, then uncordon and success', () => {
    const d = run(
      [
        obsAt(T0, 'a', 'ready', T0),
        obsAt(T0 + MIN, 'a', 'runtimeDown', T0 + MIN),
        obsAt(T0 + 14 * MIN, 'a', 'ready', T0 + 14 * MIN),
      ],
      policy(),
    );
    expect(summary(d)).toEqual([
      '60s Suspect ',
      '660.001s Remediating Cordon,Drain,Remediate:SoftReboot#1',
      '1140s Healthy Uncordon',
    ]);
    expect(d[1]!.cause.kind).toBe('ContainerRuntimeDown');
    expect(d[1]!.actions[1]).toMatchObject({ type: 'Drain', unreachable: false });
    expect(d[2]!.nextState?.lastRemediation).toMatchObject({ result: 'Succeeded', step: 0 });
  });

  it('a node that is shutting down is waited for, even past every timeout', () => {
    const d = run(
      [obsAt(T0, 'a', 'ready', T0), obsAt(T0 + MIN, 'a', 'shuttingDown', T0 + MIN)],
      policy(),
    );
    expect(d.every((x) => x.actions.length === 0)).toBe(true);
    expect(d.map((x) => x.phase)).toEqual(['Waiting']);
  });

  it('short NotReady episodes: K of them within the window make the node unhealthy once the episode has lasted flap.settle', () => {
    const obs: TimedObservation[] = [obsAt(T0, 'a', 'ready', T0)];
    for (let i = 1; i <= 3; i++) {
      const down = T0 + i * 10 * MIN;
      obs.push(
        obsAt(down, 'a', 'unknown', down),
        obsAt(down + 2 * MIN, 'a', 'ready', down + 2 * MIN),
      );
    }
    const d = run(obs, policy());
    const start = d.find((x) => x.actions.some((a) => a.type === 'Remediate'));
    // Not at the episode's first instant: settle (2 s) + 1 ms later, so the storm guard has
    // seen the nodes that failed in the same moment.
    expect(start?.at).toBe(T0 + 30 * MIN + 2_000 + 1);
    expect(start?.reason).toMatch(/flapping: 3 NotReady episodes/);
    const before = d.filter((x) => x.at >= T0 + 30 * MIN && x.at < start!.at);
    expect(before.map((x) => x.phase)).toContain('Suspect');
  });

  it('flapping again soon after a successful repair starts the next one a step higher', () => {
    const obs = [
      obsAt(T0, 'a', 'ready', T0),
      obsAt(T0 + MIN, 'a', 'runtimeDown', T0 + MIN),
      obsAt(T0 + 14 * MIN, 'a', 'ready', T0 + 14 * MIN),
      obsAt(T0 + 30 * MIN, 'a', 'runtimeDown', T0 + 30 * MIN),
    ];
    const d = run(obs, policy());
    const starts = d.filter((x) => x.actions.some((a) => a.type === 'Cordon'));
    expect(starts.map((x) => x.actions.find((a) => a.type === 'Remediate'))).toMatchObject([
      { action: 'SoftReboot' },
      { action: 'HardReboot' },
    ]);
    expect(starts[1]!.reason).toMatch(/escalating/);
  });

  it('a controller that dies between intent and completion re-issues the same action id; the provider reboots once', () => {
    const rebooted: string[] = [];
    let crashes = 1;
    const provider: ActionExecutor = (action) => {
      // Test double of an idempotent RebootProvider: a repeated id returns the first result.
      if (!rebooted.includes(action.actionId)) rebooted.push(action.actionId);
      if (crashes > 0) {
        crashes -= 1;
        return undefined; // died before recording the completion
      }
      return { result: 'Succeeded' };
    };
    const d = run(
      [
        obsAt(T0, 'a', 'ready', T0),
        obsAt(T0 + MIN, 'a', 'unknown', T0 + MIN),
        obsAt(T0 + 20 * MIN, 'a', 'ready', T0 + 20 * MIN),
      ],
      policy(),
      provider,
    );
    const remediates = d.flatMap((x) => x.actions.filter((a) => a.type === 'Remediate'));
    expect(remediates.map((a) => a.type === 'Remediate' && a.replay)).toEqual([false, true]);
    expect(
      new Set(remediates.map((a) => (a.type === 'Remediate' ? a.actionId : ''))),
    ).toHaveProperty('size', 1);
    expect(rebooted).toHaveLength(1);
    expect(d[d.length - 1]!.phase).toBe('Healthy');
  });

  it('paused and skip-remediation nodes are never touched', () => {
    for (const key of ['cluster.x-k8s.io/paused', 'cluster.x-k8s.io/skip-remediation']) {
      const d = run(
        [obsAt(T0, 'a', 'unknown', T0 - 3 * H, { annotations: { [key]: '' } })],
        policy(),
      );
      expect(d).toEqual([]);
    }
  });

  it('the manual trigger annotation repairs a Ready node once per value', () => {
    const p = policy();
    const d = run(
      [
        obsAt(T0, 'a', 'ready', T0 - H, {
          annotations: { 'noderepair.io/repair-now': 'ticket-1' },
        }),
        obsAt(T0 + 30 * MIN, 'a', 'ready', T0 - H, {
          annotations: { 'noderepair.io/repair-now': 'ticket-1' },
        }),
      ],
      p,
    );
    expect(d.filter((x) => x.actions.some((a) => a.type === 'Remediate'))).toHaveLength(1);
    expect(d[0]!.reason).toMatch(/manual trigger noderepair.io\/repair-now="ticket-1"/);
    expect(d[d.length - 1]!.phase).toBe('Healthy');
  });

  it('dry-run marks every action so the shell changes nothing', () => {
    const d = run([obsAt(T0, 'a', 'unknown', T0 - H)], policy({ dryRun: true }));
    expect(d.flatMap((x) => x.actions).every((a) => a.dryRun)).toBe(true);
    expect(d.flatMap((x) => x.actions).length).toBeGreaterThan(0);
  });

  it('an already cordoned node is not cordoned, nor uncordoned afterwards', () => {
    const d = run(
      [
        obsAt(T0, 'a', 'runtimeDown', T0 - H, { unschedulable: true }),
        obsAt(T0 + MIN, 'a', 'ready', T0 + MIN, { unschedulable: true }),
      ],
      policy(),
    );
    const types = d.flatMap((x) => x.actions.map((a) => a.type));
    expect(types).not.toContain('Cordon');
    expect(types).not.toContain('Uncordon');
    expect(d[d.length - 1]!.phase).toBe('Healthy');
  });

  it('a failed provider call is retried after the backoff, then escalates', () => {
    const d = run(
      [obsAt(T0, 'a', 'unknown', T0 - H)],
      policy({ ladder: [{ action: 'SoftReboot', attempts: 2 }, { action: 'HardReboot' }] }),
      () => ({ result: 'Failed', message: 'nova: 503' }),
    );
    expect(summary(d).filter((x) => x.includes('Remediate'))).toEqual([
      '0s Remediating Cordon,Drain,Remediate:SoftReboot#1',
      '60s Remediating Remediate:SoftReboot#2',
      '120s Remediating Remediate:HardReboot#1',
    ]);
    expect(d[d.length - 1]!.phase).toBe('Failed');
  });

  it('the storm guard holds new repairs when too many nodes are unhealthy', () => {
    const names = ['a', 'b', 'c', 'd', 'e'];
    const obs = names.map((n) => obsAt(T0, n, 'ready', T0));
    for (const n of ['a', 'b', 'c']) obs.push(obsAt(T0 + MIN, n, 'unknown', T0 + MIN));
    const d = run(obs, policy({ stormGuard: { maxUnhealthy: '40%' } }));
    expect(d.some((x) => x.actions.some((a) => a.type === 'Remediate'))).toBe(false);
    expect(d.find((x) => x.phase === 'Unhealthy')?.reason).toMatch(
      /storm guard: 3 of 5 nodes unhealthy \(limit 2\)/,
    );
  });
});

describe('persisted repair state', () => {
  it('round-trips through the annotation and a restarted controller continues exactly', () => {
    const p = defaultRepairPolicy;
    const node = buildNode({ name: 'a', ready: 'unknown', since: T0 });
    const first = decideRepair({ nodeName: 'a', node }, undefined, p, T0 + 11 * MIN);
    expect(first.phase).toBe('Remediating');
    const text = serializeRepairState(first.nextState!);
    const parsed = parseRepairState(text);
    expect(either.isRight(parsed) && parsed.right).toEqual(first.nextState);
    const actionId = (first.actions[2] as { actionId: string }).actionId;
    // Restart mid-drain: the drain goes on from its recorded start; the action was never
    // sent (no drain end recorded), so it follows as a first send.
    const midDrain = decideRepair(
      { nodeName: 'a', node },
      (parsed as either.Right<RepairState>).right,
      p,
      T0 + 11 * MIN + 30_000,
    );
    expect(midDrain.actions).toEqual([
      expect.objectContaining({ type: 'Drain', startedAt: T0 + 11 * MIN }),
      expect.objectContaining({ type: 'Remediate', replay: false, actionId }),
    ]);
    expect(midDrain.nextState).toEqual(first.nextState);
    // The drain's end is recorded, then a restart before completion: the same action id
    // comes back as a replay, nothing else.
    const drained = recordDrain(midDrain.nextState!, {
      remediationId: first.nextState!.remediation!.id,
      ended: { at: T0 + 11 * MIN + 30_000, outcome: 'Drained' },
    });
    const again = decideRepair(
      { nodeName: 'a', node },
      (parseRepairState(serializeRepairState(drained)) as either.Right<RepairState>).right,
      p,
      T0 + 12 * MIN,
    );
    expect(again.actions).toEqual([
      expect.objectContaining({
        type: 'Remediate',
        replay: true,
        actionId: (first.actions[2] as { actionId: string }).actionId,
      }),
    ]);
    // Completion recorded, then restart: no action, waiting for Ready.
    const done = recordOutcome(again.nextState!, {
      actionId: (first.actions[2] as { actionId: string }).actionId,
      result: 'Succeeded',
      at: T0 + 12 * MIN,
    });
    const restarted = parseRepairState(serializeRepairState(done));
    const later = decideRepair(
      { nodeName: 'a', node },
      (restarted as either.Right<RepairState>).right,
      p,
      T0 + 13 * MIN,
    );
    expect(later.actions).toEqual([]);
    expect(later.phase).toBe('Verifying');
    expect(later.requeueAfterMs).toBe(9 * MIN);
  });

  it('reports clear errors for a corrupt or future annotation', () => {
    expect(parseRepairState('{nope')).toEqual(
      either.left('repair-state annotation: expected JSON, got text that does not parse'),
    );
    expect(parseRepairState('{"v":2}')).toEqual(
      either.left(
        'repair-state annotation: version 2 is not understood by this controller (it understands 1)',
      ),
    );
    const bad = parseRepairState(
      '{"v":1,"phase":"Dancing","since":"2026-01-01T00:00:00Z","episodes":[]}',
    );
    expect(either.isLeft(bad) && bad.left).toMatch(
      /phase: expected one of Healthy, Suspect, Waiting, Unhealthy, Remediating, Verifying, Failed, got "Dancing"/,
    );
    expect(parseRepairState(undefined)).toEqual(either.right(undefined));
  });
});
