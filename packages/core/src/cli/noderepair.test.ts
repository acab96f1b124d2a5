// Runs `noderepair simulate` on every example trace in examples/traces and checks the decisions.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runCli } from './noderepair.js';
import type { SimulatedDecision } from './simulate.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const traces = `${repo}examples/traces/`;

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    readFile: (p) => readFile(p, 'utf8'),
  });
  return { code, out, err };
}

async function simulateTrace(name: string): Promise<SimulatedDecision[]> {
  const r = await cli([
    'simulate',
    '--policy',
    `${traces}policy.yaml`,
    '--trace',
    `${traces}${name}`,
    '--json',
  ]);
  expect(r.err).toEqual([]);
  expect(r.code).toBe(0);
  return r.out.map((l) => JSON.parse(l) as SimulatedDecision);
}

/** "hh:mm:ss node action" for every decision that acted. */
const acted = (ds: SimulatedDecision[]) =>
  ds
    .filter((d) => d.action !== '-')
    .map(
      (d) =>
        `${d.time.slice(11, 19)} ${d.node} ${d.action}${d.result && d.result !== 'Succeeded' ? `[${d.result}]` : ''}`,
    );

describe('noderepair simulate on the example traces', () => {
  it('kubelet-stop: cordon, drain (unreachable), soft reboot just past 10 min; uncordon after 5 min Ready', async () => {
    const ds = await simulateTrace('kubelet-stop.jsonl');
    expect(acted(ds)).toEqual([
      '01:10:00 w1 Cordon',
      '01:10:00 w1 Drain',
      '01:10:00 w1 SoftReboot',
      '01:20:00 w1 Uncordon',
    ]);
    expect(ds.find((d) => d.action === 'Drain')?.reason).toMatch(
      /no out-of-service taint before the machine is fenced/,
    );
    // A soft reboot never fences: no fence check, so never the taint.
    expect(ds.some((d) => d.action === 'Fence')).toBe(false);
    expect(ds.find((d) => d.action === 'SoftReboot')).toMatchObject({
      cause: 'KubeletUnreachable',
      actionId: 'w1/1767229800001/SoftReboot-1',
    });
    expect(ds[ds.length - 1]).toMatchObject({
      phase: 'Healthy',
      reason: 'Ready for 5m after SoftReboot: repair succeeded',
    });
  });

  it('runtime-down: the soft reboot call fails, backoff, hard reboot, success', async () => {
    const ds = await simulateTrace('runtime-down.jsonl');
    expect(acted(ds)).toEqual([
      '02:10:00 w2 Cordon',
      '02:10:00 w2 Drain',
      '02:10:00 w2 SoftReboot[Failed]',
      '02:11:00 w2 HardReboot',
      // Accepted, node still down: at the controller's next look, 1 s after the outcome,
      // it asks whether the machine is fenced.
      '02:11:01 w2 Fence',
      '02:19:00 w2 Uncordon',
    ]);
    expect(ds.find((d) => d.action === 'Cordon')?.cause).toBe('ContainerRuntimeDown');
  });

  it('flapping: the third short episode triggers a repair; three more soon after the repair escalate', async () => {
    const ds = await simulateTrace('flapping.jsonl');
    // Each flapping repair starts once its episode has lasted flap.settle (2 s), not at once.
    expect(acted(ds)).toEqual([
      '00:30:02 w1 Cordon',
      '00:30:02 w1 Drain',
      '00:30:02 w1 SoftReboot',
      '00:39:00 w1 Uncordon',
      '01:05:02 w1 Cordon',
      '01:05:02 w1 Drain',
      '01:05:02 w1 HardReboot',
      '01:05:03 w1 Fence',
      '01:13:00 w1 Uncordon',
    ]);
    // The verified repair at 00:39 cleared the memory: 00:45 and 00:55 are episodes 1 and 2.
    expect(ds.find((d) => d.action === 'HardReboot')?.reason).toMatch(
      /flapping: 3 NotReady episodes within 1h .*escalating/,
    );
  });

  it('continuous-outage: Unknown -> False -> Unknown without Ready is one episode; the timeout runs from its start', async () => {
    const ds = await simulateTrace('continuous-outage.jsonl');
    // Not a flapping repair at 01:07 (the third flip), and not 10 minutes after the last
    // flip (01:19): 10 minutes after the node stopped being Ready, plus the 1 ms that makes
    // the deadline strictly past.
    expect(acted(ds)).toEqual([
      '01:10:00 w1 Cordon',
      '01:10:00 w1 Drain',
      '01:10:00 w1 SoftReboot',
      '01:19:00 w1 Uncordon',
    ]);
    const start = ds.find((d) => d.action === 'SoftReboot');
    expect(start).toMatchObject({
      time: '2026-01-01T01:10:00.001Z',
      cause: 'ContainerRuntimeDown',
      actionId: 'w1/1767229800001/SoftReboot-1',
    });
    expect(start?.reason).toMatch(/not Ready for more than 10m/);
    expect(ds.some((d) => /flapping/.test(d.reason))).toBe(false);
  });

  it('blip-after-repair: our reboot is no episode, a verified repair clears the memory, one blip after it repairs nothing', async () => {
    const ds = await simulateTrace('blip-after-repair.jsonl');
    expect(acted(ds)).toEqual([
      '01:10:00 w1 Cordon',
      '01:10:00 w1 Drain',
      '01:10:00 w1 SoftReboot',
      '01:17:00 w1 Uncordon',
    ]);
    expect(
      ds
        .filter((d) => d.time >= '2026-01-01T01:30')
        .map((d) => `${d.time.slice(11, 19)} ${d.phase}`),
    ).toEqual(['01:30:00 Suspect', '01:33:00 Healthy']);
  });

  it('shutdown-after-blips: a planned shutdown is no episode, so two blips and a shutdown are not flapping', async () => {
    const ds = await simulateTrace('shutdown-after-blips.jsonl');
    expect(acted(ds)).toEqual([]);
    expect(ds.map((d) => `${d.time.slice(11, 19)} ${d.cause} ${d.phase}`)).toEqual([
      '00:10:00 KubeletUnreachable Suspect',
      '00:12:00 Healthy Healthy',
      '00:20:00 KubeletUnreachable Suspect',
      '00:22:00 Healthy Healthy',
      '00:40:00 ShuttingDown Waiting',
      // Powered off after the shutdown: still Waiting (never powered on), until it is back.
      '00:48:00 Healthy Healthy',
    ]);
  });

  it('never-returns: the whole ladder, then give up; the deleted node is forgotten', async () => {
    const ds = await simulateTrace('never-returns.jsonl');
    expect(acted(ds)).toEqual([
      '01:10:00 w3 Cordon',
      '01:10:00 w3 Drain',
      '01:10:00 w3 SoftReboot',
      '01:20:00 w3 HardReboot',
      '01:20:01 w3 Fence',
      '01:35:00 w3 HardReboot',
      '01:35:01 w3 Fence',
      '01:50:00 w3 Replace',
      '01:50:01 w3 DeleteNode',
      '02:20:05 w3 GiveUp',
      '02:30:00 w3 Forget',
    ]);
    expect(ds.filter((d) => d.node === 'w4')).toEqual([]);
  });

  it('storm: a zone outage is held by the storm guard; a lone failure later is repaired', async () => {
    const ds = await simulateTrace('storm.jsonl');
    expect(acted(ds)).toEqual([
      '04:10:00 w5 Cordon',
      '04:10:00 w5 Drain',
      '04:10:00 w5 SoftReboot',
      '04:25:00 w5 Uncordon',
    ]);
    const held = ds.filter((d) => d.phase === 'Unhealthy');
    expect(held.map((d) => d.node)).toEqual(['w1', 'w2', 'w3']);
    expect(held[0]?.reason).toMatch(/storm guard: 3 of 6 nodes unhealthy \(limit 2\)/);
  });

  it('shutdown: waited for, never touched', async () => {
    const ds = await simulateTrace('shutdown.jsonl');
    expect(acted(ds)).toEqual([]);
    expect(ds.some((d) => d.phase === 'Suspect' || d.phase === 'Unhealthy')).toBe(false);
    expect(ds.map((d) => `${d.node} ${d.cause} ${d.phase}`)).toEqual([
      'w2 ShuttingDown Waiting',
      'w2 Healthy Healthy',
    ]);
  });

  it('text output: one line per decision with time, node, cause, phase, action and reason', async () => {
    const r = await cli([
      'simulate',
      '--policy',
      `${traces}policy.yaml`,
      '--trace',
      `${traces}kubelet-stop.jsonl`,
    ]);
    expect(r.code).toBe(0);
    expect(r.out[1]).toBe(
      '2026-01-01T01:10:00.001Z  w1  KubeletUnreachable  Remediating  Cordon  KubeletUnreachable: Ready=Unknown for more than 10m',
    );
  });

  it('bad usage and bad input give clear errors and exit codes', async () => {
    expect((await cli([])).code).toBe(2);
    expect(await cli(['simulate', '--trace', 'x'])).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/--policy and --trace are required/)],
    });
    expect(await cli(['frobnicate'])).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/unknown command "frobnicate"/)],
    });
    expect(
      await cli(['simulate', '--policy', `${traces}nope.yaml`, '--trace', `${traces}storm.jsonl`]),
    ).toMatchObject({ code: 1, err: [expect.stringMatching(/cannot read input: ENOENT/)] });
    const io = (files: Record<string, string>) => ({
      stdout: () => {},
      stderr: (l: string) => errs.push(l),
      readFile: async (p: string) => files[p] ?? '',
    });
    const errs: string[] = [];
    expect(
      await runCli(
        ['simulate', '--policy', 'p', '--trace', 't'],
        io({ p: 'ladder: []', t: '{"time":"2026-01-01T00:00:00Z","node":"a"}' }),
      ),
    ).toBe(1);
    expect(errs.pop()).toBe(
      'noderepair simulate: p: invalid repair policy: ladder: expected at least one step',
    );
    expect(
      await runCli(
        ['simulate', '--policy', 'p', '--trace', 't'],
        io({ p: '{}', t: '{"time":"yesterday","node":"a"}\nnot json' }),
      ),
    ).toBe(1);
    expect(errs.pop()).toBe(
      'noderepair simulate: t: invalid trace: line 1: time: expected an RFC 3339 timestamp, got "yesterday"; line 2: not valid JSON',
    );
  });

  it('the bin also runs through a symlink, as npm installs it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'noderepair-bin-'));
    try {
      const link = join(dir, 'noderepair.ts');
      await symlink(`${repo}packages/core/src/cli/noderepair.ts`, link);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          link,
          'simulate',
          '--policy',
          `${traces}policy.yaml`,
          '--trace',
          `${traces}shutdown.jsonl`,
          '--json',
        ],
        { cwd: repo },
      );
      expect(JSON.parse(stdout.split('\n')[0] ?? '')).toMatchObject({
        node: 'w2',
        cause: 'ShuttingDown',
        phase: 'Waiting',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the bin runs as a real process', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        `${repo}packages/core/src/cli/noderepair.ts`,
        'simulate',
        '--policy',
        `${traces}policy.yaml`,
        '--trace',
        `${traces}shutdown.jsonl`,
      ],
      { cwd: repo },
    );
    expect(stdout.split('\n')[0]).toBe(
      '2026-01-01T01:00:00.000Z  w2  ShuttingDown  Waiting  -  the node is shutting down: waiting for it, never rebooting it; if it stays down it is waited for for ever (policy shutdown.poweredOff: Wait)',
    );
  });
});
