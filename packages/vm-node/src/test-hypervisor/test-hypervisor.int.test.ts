// The test hypervisor and its provider against REAL qemu processes (TCG, no guest: the
// firmware finds no disk and idles, which is all a power action needs). Checks core's four
// provider promises end to end: exactly once (the hypervisor's records, a replay asks first),
// outages are Unavailable, a fence only on an observed reset or stop, power state.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ActionRequest, MachineProvider } from '@noderepair/core/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerModule, TestHypervisor, testHypervisorProvider } from './index.js';

const ctx = { signal: new AbortController().signal };
const dir = mkdtempSync(join(tmpdir(), 'test-hypervisor-'));
const vms: ChildProcess[] = [];

async function startVm(name: string): Promise<string> {
  const qmp = join(dir, `${name}.qmp`);
  const vm = spawn(
    'qemu-system-x86_64',
    [
      '-accel',
      'tcg',
      '-m',
      '32',
      '-nodefaults',
      '-no-user-config',
      '-display',
      'none',
      '-qmp',
      `unix:${qmp},server=on,wait=off`,
      '-no-shutdown',
    ],
    { stdio: 'ignore' },
  );
  vms.push(vm);
  for (let i = 0; !existsSync(qmp); i++) {
    if (i > 100) throw new Error(`qemu for ${name} did not open its QMP socket`);
    await sleep(100);
  }
  return qmp;
}

const req = (over: Partial<ActionRequest>): ActionRequest => ({
  node: 'vm-a',
  providerID: 'qemu-test:///vm-a',
  action: 'HardReboot',
  actionId: 'vm-a/1/step-0/attempt-1',
  issuedAt: Date.now(),
  replay: false,
  ...over,
});

const until = async <T>(what: string, f: () => Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 100; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('the test hypervisor on real qemu', () => {
  let hv: TestHypervisor;
  let provider: MachineProvider;
  const resets = (name: string) =>
    hv
      .events(name)
      .filter((e) => e.event === 'RESET' && e.data['reason'] === 'host-qmp-system-reset').length;

  beforeAll(async () => {
    hv = new TestHypervisor(dir);
    await hv.addMachine('vm-a', await startVm('vm-a'));
    await hv.addMachine('vm-b', await startVm('vm-b'));
    await hv.addMachine('vm-c', await startVm('vm-c'));
    await hv.serve();
    provider = testHypervisorProvider(hv.controlSocket);
  }, 60_000);

  afterAll(async () => {
    await hv?.close();
    for (const vm of vms) vm.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('HardReboot: one system_reset per actionId, replays included; fenced once qemu reports the RESET', async () => {
    expect(await hv.runState('vm-a')).toBe('running');
    const first = await provider.execute(req({}), ctx);
    expect(first).toMatchObject({ kind: 'Accepted' });
    const fence = await until('the fence', async () => {
      const f = await provider.fence({ ...req({}), actionId: 'vm-a/1/step-0/attempt-1' }, ctx);
      return f.kind === 'Fenced' ? f : undefined;
    });
    expect(fence).toMatchObject({ how: 'ResetObserved' });
    // The same id again, as a first send and as a replay: the records answer, qemu is not touched.
    expect(await provider.execute(req({}), ctx)).toMatchObject({ kind: 'Accepted' });
    const replay = await provider.execute(req({ replay: true }), ctx);
    expect(replay).toMatchObject({
      kind: 'Accepted',
      message: expect.stringContaining('already executed'),
    });
    await sleep(300);
    expect(resets('vm-a')).toBe(1);
    expect(hv.actions('vm-a')).toHaveLength(1);
  });

  it('one id sent twice at once: one record, one system_reset (the record comes first)', async () => {
    const id = 'vm-c/6/step-0/attempt-1';
    const before = resets('vm-c');
    const [a, b] = await Promise.all([
      hv.execute('vm-c', id, 'HardReboot'),
      hv.execute('vm-c', id, 'HardReboot'),
    ]);
    expect(a).toEqual(b);
    await until('the RESET', async () => (resets('vm-c') === before + 1 ? true : undefined));
    await sleep(300);
    expect(resets('vm-c')).toBe(before + 1);
    expect(hv.actions('vm-c').filter((r) => r.actionId === id)).toHaveLength(1);
  });

  it('a replay of an id that never arrived asks the records, then sends it once', async () => {
    const id = 'vm-b/7/step-0/attempt-1';
    const r = await provider.execute(
      req({ node: 'vm-b', providerID: 'qemu-test:///vm-b', actionId: id, replay: true }),
      ctx,
    );
    expect(r).toMatchObject({
      kind: 'Accepted',
      message: 'HardReboot accepted by the test hypervisor',
    });
    await until('the RESET', async () => (resets('vm-b') === 1 ? true : undefined));
    expect(hv.actions('vm-b').map((a) => a.actionId)).toEqual([id]);
  });

  it('PowerOff stops the vCPUs: fenced PoweredOff, power Off but ours (not by request); a soft reboot is then refused; HardReboot powers on', async () => {
    const off = req({ action: 'PowerOff', actionId: 'vm-a/2/step-1/attempt-1' });
    expect(await provider.execute(off, ctx)).toMatchObject({ kind: 'Accepted' });
    // Stopped, then reset while stopped: qemu calls that `prelaunch`.
    expect(await hv.runState('vm-a')).toBe('prelaunch');
    expect(await provider.fence(off, ctx)).toMatchObject({ kind: 'Fenced', how: 'PoweredOff' });
    expect(await provider.powerState!(off, ctx)).toMatchObject({
      kind: 'Off',
      byRequest: false,
      evidence: expect.stringContaining(`powered off by ${off.actionId}: ours`),
    });
    const soft = await provider.execute(
      req({ action: 'SoftReboot', actionId: 'vm-a/3/step-0/attempt-1' }),
      ctx,
    );
    expect(soft).toMatchObject({
      kind: 'Rejected',
      message: expect.stringContaining('not running'),
    });
    expect(await provider.execute(req({ actionId: 'vm-a/4/step-2/attempt-1' }), ctx)).toMatchObject(
      { kind: 'Accepted' },
    );
    expect(await hv.runState('vm-a')).toBe('running');
    expect(await provider.powerState!(off, ctx)).toEqual({ kind: 'On' });
  });

  it("an operator's power-off at the hypervisor (no provider action, nothing announced) is Off by request; powered on again, On", async () => {
    await hv.operatorPowerOff('vm-c');
    expect(await hv.runState('vm-c')).toBe('prelaunch');
    const ps = await provider.powerState!(
      req({ node: 'vm-c', providerID: 'qemu-test:///vm-c' }),
      ctx,
    );
    expect(ps).toMatchObject({
      kind: 'Off',
      byRequest: true,
      evidence: expect.stringContaining('operator'),
    });
    await hv.operatorPowerOn('vm-c');
    expect(await hv.runState('vm-c')).toBe('running');
    expect(
      await provider.powerState!(req({ node: 'vm-c', providerID: 'qemu-test:///vm-c' }), ctx),
    ).toEqual({ kind: 'On' });
  });

  it('a SoftReboot is accepted and never fences', async () => {
    const soft = req({ action: 'SoftReboot', actionId: 'vm-a/5/step-0/attempt-1' });
    expect(await provider.execute(soft, ctx)).toMatchObject({ kind: 'Accepted' });
    expect(await provider.fence(soft, ctx)).toMatchObject({
      kind: 'NotFenced',
      reason: expect.stringContaining('never fences'),
    });
  });

  it('another machine, another scheme or an unknown action id are answers, not outages', async () => {
    expect(
      await provider.execute(req({ providerID: 'qemu-test:///vm-z', actionId: 'z/1' }), ctx),
    ).toEqual({
      kind: 'Rejected',
      message: 'no machine vm-z',
    });
    expect(
      await provider.execute(req({ providerID: 'openstack:///1234', actionId: 'z/2' }), ctx),
    ).toMatchObject({
      kind: 'Rejected',
      message: expect.stringContaining('is not a test hypervisor machine'),
    });
    expect(await provider.fence(req({ actionId: 'never-sent' }), ctx)).toMatchObject({
      kind: 'NotFenced',
    });
    expect(await provider.powerState!(req({ providerID: 'qemu-test:///vm-z' }), ctx)).toMatchObject(
      { kind: 'Gone' },
    );
  });

  it('the control API down is an outage: Unavailable, nothing sent; after it, the replay asks first and sends once', async () => {
    await hv.stopServing();
    const id = 'vm-b/8/step-0/attempt-1';
    const during = await provider.execute(
      req({ node: 'vm-b', providerID: 'qemu-test:///vm-b', actionId: id }),
      ctx,
    );
    expect(during).toMatchObject({ kind: 'Unavailable', maybeSent: false });
    expect(await provider.fence(req({ actionId: id }), ctx)).toMatchObject({ kind: 'Unavailable' });
    expect(await provider.powerState!(req({}), ctx)).toMatchObject({ kind: 'Unavailable' });
    expect(hv.actions('vm-b').map((a) => a.actionId)).not.toContain(id);
    await hv.serve();
    const before = resets('vm-b');
    expect(
      await provider.execute(
        req({ node: 'vm-b', providerID: 'qemu-test:///vm-b', actionId: id, replay: true }),
        ctx,
      ),
    ).toMatchObject({
      kind: 'Accepted',
    });
    await until('the RESET', async () => (resets('vm-b') === before + 1 ? true : undefined));
  });

  it('the records outlive the hypervisor process: a new one answers a known id without acting', async () => {
    await hv.stopServing();
    const again = new TestHypervisor(dir);
    try {
      expect(again.actions('vm-a').map((a) => a.action)).toEqual([
        'HardReboot',
        'PowerOff',
        'HardReboot',
        'SoftReboot',
      ]);
      await again.serve();
      const p = testHypervisorProvider(again.controlSocket);
      // No machine is attached to the new process: only its records can answer, and they do.
      const got = await p.execute(req({ replay: true }), ctx);
      expect(got).toMatchObject({
        kind: 'Accepted',
        message: expect.stringContaining('already executed'),
      });
    } finally {
      await again.close();
      await hv.serve();
    }
  });

  it('the provider module requires its control option and names it', () => {
    const base = { cluster: {} as never, env: {}, log: {} as never, signal: ctx.signal };
    expect(() => providerModule.create({ ...base, options: {} })).toThrow(
      'test-hypervisor: option control is required (--provider-opt control=<socket path>)',
    );
    expect(
      providerModule.create({ ...base, options: { control: hv.controlSocket } }),
    ).toMatchObject({ name: 'test-hypervisor' });
  });
});
