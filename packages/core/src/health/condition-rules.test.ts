// Per-condition rules (issue 46): an unhealthyConditions entry with a reason or message
// pattern, its own wait and its own ladder or NoAction; the strict decoder naming the field;
// which entry wins; a repair keeping its rule's ladder across condition changes and a restart.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from './builders.js';
import { assessNode } from './assess.js';
import { decideRepair, recordOutcome } from './decide.js';
import { decideFleet } from './fleet.js';
import type { NodeConditionSnapshot } from './node.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import {
  initialRepairState,
  parseRepairState,
  serializeRepairState,
  type ConditionRuleRef,
  type RepairState,
} from './state.js';
import { iso } from './time.js';
import { transitionEvents, EventReasons } from '../autorepair/events.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
// The regex field this one replaced (spelt in two halves so no source names it any more).
const oldField = 'message' + 'Pattern';
const errorOf = (input: unknown): string => {
  const p = resolveRepairPolicy(input);
  if (either.isRight(p)) throw new Error('expected an error');
  return p.left;
};

// node-problem-detector's texts (config/kernel-monitor.json, docker/containerd monitors).
const deadlock = (since: number, reason = 'DockerHung'): NodeConditionSnapshot => ({
  type: 'KernelDeadlock',
  status: 'True',
  reason,
  message:
    reason === 'DockerHung'
      ? 'task docker:7 blocked for more than 120 seconds.'
      : 'task umount.aufs:21568 blocked for more than 120 seconds.',
  lastTransitionTime: iso(since),
  lastHeartbeatTime: iso(since),
});
const noDeadlock = (since: number): NodeConditionSnapshot => ({
  type: 'KernelDeadlock',
  status: 'False',
  reason: 'KernelHasNoDeadlock',
  message: 'kernel has no deadlock',
  lastTransitionTime: iso(since),
  lastHeartbeatTime: iso(since),
});
const readonlyFs = (since: number): NodeConditionSnapshot => ({
  type: 'ReadonlyFilesystem',
  status: 'True',
  reason: 'FilesystemIsReadOnly',
  message: 'Remounting filesystem read-only',
  lastTransitionTime: iso(since),
  lastHeartbeatTime: iso(since),
});
const containerdRestarts = (since: number): NodeConditionSnapshot => ({
  type: 'FrequentContainerdRestart',
  status: 'True',
  reason: 'FrequentContainerdRestart',
  message: 'Found 5 matching logs, which meets the threshold of 5',
  lastTransitionTime: iso(since),
  lastHeartbeatTime: iso(since),
});

const npd = {
  unhealthyConditions: [
    { type: 'Ready', status: 'False', timeout: '10m' },
    { type: 'Ready', status: 'Unknown', timeout: '10m' },
    {
      type: 'KernelDeadlock',
      status: 'True',
      timeout: '5m',
      ladder: [{ action: 'HardReboot', timeout: '15m', attempts: 2 }],
    },
    {
      type: 'ReadonlyFilesystem',
      status: 'True',
      timeout: '10m',
      messageContains: 'read-only',
      ladder: [
        { action: 'Rebuild', image: 'ubuntu-24.04', timeout: '30m' },
        { action: 'Replace', timeout: '30m' },
      ],
    },
    { type: 'FrequentContainerdRestart', status: 'True', timeout: '0s', action: 'NoAction' },
  ],
};

const node = (extra: NodeConditionSnapshot[], ready: 'ready' | 'runtimeDown' = 'ready') => ({
  nodeName: 'w1',
  node: buildNode({ name: 'w1', ready, since: T0 - 60 * MIN, extraConditions: extra }),
});

describe('per-condition rules: the strict decoder', () => {
  it('the existing shape (type, status, timeout) resolves as before, with no rule fields', () => {
    const p = policy({ unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '3m' }] });
    expect(p.unhealthyConditions).toEqual([{ type: 'Ready', status: 'False', timeoutMs: 3 * MIN }]);
  });

  it('resolves reason, messageContains, a ladder with its defaults, and NoAction', () => {
    const p = policy({
      unhealthyConditions: [
        {
          type: 'KernelDeadlock',
          status: 'True',
          reason: 'DockerHung',
          ladder: [{ action: 'Rebuild', image: 'ubuntu-24.04' }],
        },
        { type: 'FrequentContainerdRestart', status: 'True', action: 'NoAction' },
      ],
    });
    expect(p.unhealthyConditions).toEqual([
      {
        type: 'KernelDeadlock',
        status: 'True',
        timeoutMs: 10 * MIN,
        reason: 'DockerHung',
        ladder: [{ action: 'Rebuild', timeoutMs: 10 * MIN, attempts: 1, image: 'ubuntu-24.04' }],
      },
      {
        type: 'FrequentContainerdRestart',
        status: 'True',
        timeoutMs: 10 * MIN,
        action: 'NoAction',
      },
    ]);
  });

  it('an unknown field of a rule, or of a step of its ladder, is an error naming it', () => {
    expect(
      errorOf({ unhealthyConditions: [{ type: 'KernelDeadlock', status: 'True', reasn: 'X' }] }),
    ).toContain('unhealthyConditions[0].reasn: unknown field "reasn" (did you mean "reason"?)');
    expect(
      errorOf({
        unhealthyConditions: [
          { type: 'Ready', status: 'False' },
          { type: 'Ready', status: 'Unknown' },
          {
            type: 'KernelDeadlock',
            status: 'True',
            ladder: [{ action: 'HardReboot', timout: '1m' }],
          },
        ],
      }),
    ).toContain('unhealthyConditions[2].ladder[0].timout: unknown field "timout"');
  });

  it('a bad action, regex, ladder or NoAction with a ladder is an error naming the field', () => {
    const three = (rule: Record<string, unknown>) => ({
      unhealthyConditions: [
        { type: 'Ready', status: 'False' },
        { type: 'Ready', status: 'Unknown' },
        { type: 'KernelDeadlock', status: 'True', ...rule },
      ],
    });
    expect(errorOf(three({ ladder: [{ action: 'Reboot' }] }))).toContain(
      'unhealthyConditions[2].ladder[0].action',
    );
    expect(errorOf(three({ action: 'Replace' }))).toContain('unhealthyConditions[2].action');
    expect(errorOf(three({ messageContains: '' }))).toContain(
      'unhealthyConditions[2].messageContains: expected a non-empty string',
    );
    // No regular expressions (ReDoS on messages others write): the old field is unknown.
    expect(errorOf(three({ [oldField]: '(\\w+\\s?)+$' }))).toContain(
      `unhealthyConditions[2].${oldField}: unknown field "${oldField}"`,
    );
    expect(errorOf(three({ ladder: [] }))).toContain(
      'unhealthyConditions[2].ladder: expected at least one step',
    );
    expect(errorOf(three({ ladder: [{ action: 'Rebuild' }] }))).toContain(
      'unhealthyConditions[2].ladder[0].image: Rebuild needs the image',
    );
    expect(errorOf(three({ ladder: [{ action: 'Replace' }, { action: 'HardReboot' }] }))).toContain(
      'unhealthyConditions[2].ladder: Replace must be the last step',
    );
    expect(errorOf(three({ ladder: [{ action: 'HardReboot', attempts: 0 }] }))).toContain(
      'unhealthyConditions[2].ladder[0].attempts: expected an integer >= 1',
    );
    expect(errorOf(three({ action: 'NoAction', ladder: [{ action: 'HardReboot' }] }))).toContain(
      'unhealthyConditions[2].ladder: a NoAction rule starts no repair',
    );
  });

  it('two entries with the same type, status, reason and messageContains are an error naming the second', () => {
    const err = errorOf({
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown' },
        { type: 'Ready', status: 'False', timeout: '30m', ladder: [{ action: 'Replace' }] },
        { type: 'KernelDeadlock', status: 'True', reason: 'DockerHung' },
        {
          type: 'Ready',
          status: 'False',
          timeout: '5m',
          ladder: [{ action: 'SoftReboot' }, { action: 'HardReboot' }],
        },
      ],
    });
    expect(err).toContain(
      'unhealthyConditions[3]: same type, status, reason and messageContains as unhealthyConditions[1]; ',
    );
    expect(err).toContain('merge them into one entry');
    // The same reason with another messageContains, or another reason, is another key.
    expect(
      either.isRight(
        resolveRepairPolicy({
          unhealthyConditions: [
            { type: 'KernelDeadlock', status: 'True', reason: 'DockerHung' },
            {
              type: 'KernelDeadlock',
              status: 'True',
              reason: 'DockerHung',
              messageContains: 'docker',
            },
            { type: 'KernelDeadlock', status: 'True', reason: 'AUFSUmountHung' },
            { type: 'KernelDeadlock', status: 'True' },
          ],
        }),
      ),
    ).toBe(true);
  });
});

describe('per-condition rules: assessment', () => {
  const p = policy(npd);

  it('a rule matches its reason exactly and its message substring anywhere in the message', () => {
    const byReason = policy({
      unhealthyConditions: [
        { type: 'KernelDeadlock', status: 'True', reason: 'DockerHung', timeout: '1m' },
      ],
    });
    const now = T0 + 2 * MIN;
    expect(assessNode(node([deadlock(T0)]), undefined, byReason, now).signal).toBe('unhealthy');
    expect(
      assessNode(node([deadlock(T0, 'AUFSUmountHung')]), undefined, byReason, now).signal,
    ).toBe('healthy');
    const byMessage = policy({
      unhealthyConditions: [
        { type: 'KernelDeadlock', status: 'True', messageContains: 'task docker:', timeout: '1m' },
      ],
    });
    expect(assessNode(node([deadlock(T0)]), undefined, byMessage, now).signal).toBe('unhealthy');
    expect(
      assessNode(node([deadlock(T0, 'AUFSUmountHung')]), undefined, byMessage, now).signal,
    ).toBe('healthy');
    // Case-sensitive, and a substring, not a regular expression.
    const literal = (messageContains: string) =>
      policy({
        unhealthyConditions: [
          { type: 'KernelDeadlock', status: 'True', messageContains, timeout: '1m' },
        ],
      });
    expect(assessNode(node([deadlock(T0)]), undefined, literal('TASK DOCKER'), now).signal).toBe(
      'healthy',
    );
    expect(assessNode(node([deadlock(T0)]), undefined, literal('^task'), now).signal).toBe(
      'healthy',
    );
    expect(
      assessNode(node([deadlock(T0)]), undefined, literal('docker:7 blocked'), now).signal,
    ).toBe('unhealthy');
    // KernelHasNoDeadlock (status False) never matches a True rule.
    expect(assessNode(node([noDeadlock(T0)]), undefined, p, now).signal).toBe('healthy');
  });

  it('its own wait: KernelDeadlock is unhealthy after 5m, not the 10m of Ready', () => {
    expect(assessNode(node([deadlock(T0)]), undefined, p, T0 + 4 * MIN).signal).toBe('suspect');
    const a = assessNode(node([deadlock(T0)]), undefined, p, T0 + 5 * MIN + 1);
    expect(a.signal).toBe('unhealthy');
    expect(a.rule).toEqual({ type: 'KernelDeadlock', status: 'True' });
  });

  it('which rule wins: the first in policy order among those past their wait', () => {
    const both = node([deadlock(T0), readonlyFs(T0)]);
    // At 6m only KernelDeadlock (5m) is past its wait.
    expect(assessNode(both, undefined, p, T0 + 6 * MIN).rule?.type).toBe('KernelDeadlock');
    // At 11m both are: KernelDeadlock comes first in the policy.
    expect(assessNode(both, undefined, p, T0 + 11 * MIN).rule?.type).toBe('KernelDeadlock');
    const reordered = policy({
      unhealthyConditions: [...npd.unhealthyConditions].reverse(),
    });
    expect(assessNode(both, undefined, reordered, T0 + 11 * MIN).rule?.type).toBe(
      'ReadonlyFilesystem',
    );
    // A rule without its own ladder (Ready, first in the policy) wins the same way and
    // records no rule: the repair climbs the policy ladder.
    const notReady = node([deadlock(T0)], 'runtimeDown');
    const a = assessNode(notReady, undefined, p, T0 + 11 * MIN);
    expect(a.signal).toBe('unhealthy');
    expect(a.detail).toContain('Ready=False');
    expect(a.rule).toBeUndefined();
  });

  it('NoAction: unhealthy, reported, never masking a rule that acts', () => {
    const only = assessNode(node([containerdRestarts(T0)]), undefined, p, T0 + 1);
    expect(only.signal).toBe('unhealthy');
    expect(only.reportOnly).toMatch(/NoAction/);
    // With KernelDeadlock still inside its wait: suspect (the storm guard counts it), the
    // NoAction condition still in the detail, looked at again at its deadline.
    const pending = assessNode(
      node([containerdRestarts(T0), deadlock(T0)]),
      undefined,
      p,
      T0 + 1 * MIN,
    );
    expect(pending.signal).toBe('suspect');
    expect(pending.reportOnly).toBeUndefined();
    expect(pending.detail).toContain('FrequentContainerdRestart=True');
    expect(pending.detail).toContain('NoAction');
    expect(pending.requeueAfterMs).toBe(4 * MIN + 1);
    // Past it, KernelDeadlock acts although the NoAction entry matched too.
    const acts = assessNode(
      node([containerdRestarts(T0), deadlock(T0)]),
      undefined,
      p,
      T0 + 6 * MIN,
    );
    expect(acts.reportOnly).toBeUndefined();
    expect(acts.rule?.type).toBe('KernelDeadlock');
  });
});

/** Decides and, for a Remediate action, records the provider's acceptance. */
function step(
  obs: ReturnType<typeof node>,
  state: RepairState | undefined,
  p: RepairPolicy,
  now: number,
) {
  const d = decideRepair(obs, state, p, now);
  let next = d.nextState;
  for (const act of d.actions)
    if (act.type === 'Remediate' && next !== undefined)
      next = recordOutcome(next, { actionId: act.actionId, at: now, result: 'Succeeded' });
  return { d, next };
}

describe('per-condition rules: decisions', () => {
  const p = policy({ ...npd, drain: { enabled: false } });

  it('a KernelDeadlock repair climbs its rule ladder (HardReboot), not the policy ladder', () => {
    const { d, next } = step(node([deadlock(T0)]), undefined, p, T0 + 6 * MIN);
    expect(d.phase).toBe('Remediating');
    const remediate = d.actions.find((a) => a.type === 'Remediate');
    expect(remediate).toMatchObject({ action: 'HardReboot' });
    expect(d.reason).toContain('step 1 of 1');
    expect(next?.remediation?.rule).toEqual({ type: 'KernelDeadlock', status: 'True' });
  });

  it('a ReadonlyFilesystem repair rebuilds first; the policy ladder starts with SoftReboot', () => {
    const { d } = step(node([readonlyFs(T0)]), undefined, p, T0 + 11 * MIN);
    expect(d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'Rebuild',
      image: 'ubuntu-24.04',
    });
    const { d: plain } = step(node([], 'runtimeDown'), undefined, p, T0 + 11 * MIN);
    expect(plain.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'SoftReboot',
    });
  });

  it('NoAction: phase Unhealthy, no action, an UnhealthyReportOnly Event, not counted as wanting a repair', () => {
    const { d } = step(node([containerdRestarts(T0)]), undefined, p, T0 + MIN);
    expect(d.phase).toBe('Unhealthy');
    expect(d.actions).toEqual([]);
    expect(d.reportOnly).toBeDefined();
    expect(d.reason).toContain('NoAction');
    expect(transitionEvents(d, undefined).map((e) => e.reason)).toEqual([
      EventReasons.UnhealthyReportOnly,
    ]);
    // In a fleet pass too (the storm guard admits nothing for it).
    const fleet = decideFleet(
      [{ obs: node([containerdRestarts(T0)]), state: undefined }],
      p,
      T0 + MIN,
    );
    expect(fleet.decisions[0]?.actions).toEqual([]);
    expect(fleet.decisions[0]?.phase).toBe('Unhealthy');
  });

  it('NoAction nodes are not counted by the storm guard: a real repair is not held by them', () => {
    const guarded = policy({
      ...npd,
      drain: { enabled: false },
      stormGuard: { maxUnhealthy: '30%', minUnhealthyAllowed: 1 },
    });
    const member = (name: string, extra: NodeConditionSnapshot[]) => ({
      obs: {
        nodeName: name,
        node: buildNode({ name, ready: 'ready', since: T0 - 60 * MIN, extraConditions: extra }),
      },
      state: undefined,
    });
    const fleet = decideFleet(
      [member('w1', [deadlock(T0)]), member('w2', [containerdRestarts(T0)]), member('w3', [])],
      guarded,
      T0 + 6 * MIN,
    );
    expect(fleet.storm.unhealthy).toBe(1);
    expect(fleet.decisions[0]?.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
  });

  it('NoAction nodes that also wait on an acting rule count: going NotReady together trips the guard', () => {
    // A bad rollout: containerd restarting (NoAction) on 40 of 100 nodes, which then go
    // NotReady (Ready=Unknown, 10m wait) together; 3 minutes in, all 40 are in that wait.
    const npdPolicy = policy({
      ...npd,
      drain: { enabled: false },
      stormGuard: { maxUnhealthy: '30%', minUnhealthyAllowed: 1 },
    });
    const notReadySince = T0 + 10 * MIN;
    const member = (i: number, bad: boolean) => {
      const name = `w${i}`;
      return {
        obs: {
          nodeName: name,
          node: buildNode({
            name,
            ready: bad ? 'unknown' : 'ready',
            since: bad ? notReadySince : T0 - 60 * MIN,
            extraConditions: bad ? [containerdRestarts(T0)] : [],
          }),
        },
        state: undefined,
      };
    };
    const fleet = Array.from({ length: 100 }, (_, i) => member(i, i < 40));
    const waiting = decideFleet(fleet, npdPolicy, notReadySince + 3 * MIN);
    expect(waiting.storm.unhealthy).toBe(40);
    expect(waiting.storm.tripped).toBe(true);
    // Past the wait (the heartbeat gone 11m): every NotReady node is held, none repaired.
    const past = decideFleet(fleet, npdPolicy, notReadySince + 11 * MIN);
    expect(past.storm.tripped).toBe(true);
    expect(past.decisions.flatMap((d) => d.actions).some((a) => a.type === 'Remediate')).toBe(
      false,
    );
  });

  it('a manual trigger on a NoAction node repairs it with the policy ladder', () => {
    const obs = node([containerdRestarts(T0)]);
    obs.node.metadata!.annotations = { 'noderepair.io/repair-now': 'please' };
    const { d } = step(obs, undefined, p, T0 + MIN);
    expect(d.actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'SoftReboot' });
  });

  it("a manual trigger on a node a rule's ladder would repair uses the policy ladder, as documented", () => {
    // ReadonlyFilesystem past its 10m: its rule's ladder starts with Rebuild (a reinstall).
    const bare = step(node([readonlyFs(T0)]), undefined, p, T0 + 11 * MIN);
    expect(bare.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'Rebuild',
    });
    // A person's trigger gets the policy's ladder whatever rule is past its wait at that
    // moment (a minute earlier no rule was): SoftReboot first, and no rule recorded, so the
    // repair climbs the policy ladder to its end.
    for (const at of [T0 + MIN, T0 + 11 * MIN]) {
      const obs = node([readonlyFs(T0)]);
      obs.node.metadata!.annotations = { 'noderepair.io/repair-now': 'please' };
      const { d, next } = step(obs, undefined, p, at);
      expect(d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
        action: 'SoftReboot',
      });
      expect(next?.remediation).toBeDefined();
      expect(next?.remediation?.rule).toBeUndefined();
    }
  });

  it('keeps its ladder when the condition changes mid-repair and across a restart (state round trip)', () => {
    let { next } = step(node([deadlock(T0)]), undefined, p, T0 + 6 * MIN);
    // The deadlock clears, the node goes NotReady instead (another rule, the policy ladder).
    const later = node([noDeadlock(T0 + 7 * MIN)], 'runtimeDown');
    // A restart: the state is written to the annotation and read back.
    const reread = parseRepairState(serializeRepairState(next!));
    expect(either.isRight(reread)).toBe(true);
    next = (reread as either.Right<RepairState | undefined>).right;
    expect(next?.remediation?.rule).toEqual({ type: 'KernelDeadlock', status: 'True' });
    // The HardReboot attempt times out after its 15m; the rule's ladder has 2 attempts of it.
    const r = step(later, next, p, T0 + 6 * MIN + 15 * MIN + 1);
    expect(r.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
    expect(r.next?.remediation).toMatchObject({ step: 0, attempt: 2 });
    // Its second attempt times out: the rule's ladder is used up (no SoftReboot, no step 2).
    const end = step(later, r.next, p, T0 + 6 * MIN + 30 * MIN + 2);
    expect(end.d.phase).toBe('Failed');
    expect(end.d.actions.some((a) => a.type === 'GiveUp')).toBe(true);
  });

  it('escalation stays in one ladder: a new repair by another rule starts at its first step', () => {
    // A NotReady repair (the policy ladder) succeeded at its step 1 (HardReboot) 20m ago.
    const after = (step: number, rule?: ConditionRuleRef): RepairState => ({
      ...initialRepairState(T0),
      lastRemediation: {
        id: 'w1/1',
        endedAt: T0 + MIN,
        step,
        result: 'Succeeded',
        ...(rule !== undefined ? { rule } : {}),
      },
    });
    const now = T0 + 21 * MIN;
    // Read-only filesystem since T0 + 10m, past its 10m wait: its ladder is [Rebuild, Replace];
    // step 1 + 1 of the policy ladder is no step of it: Rebuild, not Replace.
    const ro = step(node([readonlyFs(T0 + 10 * MIN)]), after(1), p, now);
    expect(ro.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'Rebuild' });
    expect(ro.d.reason).not.toContain('escalating');
    // An older state (no rule in lastRemediation) is a policy-ladder repair: the same.
    const old = parseRepairState(serializeRepairState(after(1)));
    expect(serializeRepairState(after(1))).not.toContain('"rule"');
    const ro2 = step(
      node([readonlyFs(T0 + 10 * MIN)]),
      (old as either.Right<RepairState | undefined>).right,
      p,
      now,
    );
    expect(ro2.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'Rebuild' });
    // The same rule failing again soon after: one step higher in its ladder (Replace).
    const roRule = { type: 'ReadonlyFilesystem', status: 'True', messageContains: 'read-only' };
    const back = parseRepairState(serializeRepairState(after(0, roRule)));
    const sameRule = step(
      node([readonlyFs(T0 + 10 * MIN)]),
      (back as either.Right<RepairState | undefined>).right,
      p,
      now,
    );
    expect(sameRule.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'Replace',
    });
    expect(sameRule.d.reason).toContain('escalating');
    // The policy ladder after a policy-ladder repair still escalates (SoftReboot -> HardReboot).
    const plain = step(node([], 'runtimeDown'), after(0), p, now);
    expect(plain.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
    // ... but not after a rule-ladder repair (KernelDeadlock's HardReboot, step 0).
    const afterRule = step(node([], 'runtimeDown'), after(0, roRule), p, now);
    expect(afterRule.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'SoftReboot',
    });
  });

  it('a repair that ends records its rule in lastRemediation', () => {
    const { next } = step(node([deadlock(T0)]), undefined, p, T0 + 6 * MIN);
    let s = next;
    for (let m = 7; m <= 60 && s?.lastRemediation === undefined; m++)
      s = decideRepair(node([noDeadlock(T0 + 6 * MIN)]), s, p, T0 + m * MIN).nextState;
    expect(s?.lastRemediation).toMatchObject({
      result: 'Succeeded',
      rule: { type: 'KernelDeadlock', status: 'True' },
    });
  });

  it('a state whose rule carries an unknown field still decodes (lenient state codec)', () => {
    const { next } = step(node([deadlock(T0)]), undefined, p, T0 + 6 * MIN);
    const json = JSON.parse(serializeRepairState(next!)) as {
      remediation: { rule: Record<string, unknown> };
    };
    json.remediation.rule[oldField] = 'task docker';
    const back = parseRepairState(JSON.stringify(json));
    expect(either.isRight(back)).toBe(true);
  });

  it('an older state without the rule field decodes and climbs the policy ladder', () => {
    const { next } = step(node([deadlock(T0)]), undefined, p, T0 + 6 * MIN);
    const { rule: _r, ...old } = next!.remediation!;
    const text = serializeRepairState({ ...next!, remediation: old });
    expect(text).not.toContain('"rule"');
    const back = parseRepairState(text);
    expect(either.isRight(back)).toBe(true);
    const state = (back as either.Right<RepairState | undefined>).right;
    // Its HardReboot (step 0) times out against the policy ladder's step 0 (SoftReboot, 10m).
    const r = step(node([deadlock(T0)]), state, p, T0 + 6 * MIN + 10 * MIN + 1);
    expect(r.d.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
    expect(r.next?.remediation).toMatchObject({ step: 1, attempt: 1 });
  });
});
