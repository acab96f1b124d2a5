import { describe, expect, it } from 'vitest';
import { DryRunProvider } from './dry-run.js';
import { canFence, judgeFence } from './fence.js';
import type { MachineProvider } from './port.js';

const signal = new AbortController().signal;

describe('judgeFence: the taint waits for proof', () => {
  it('a soft reboot never fences, whatever the provider or the bootID says', () => {
    expect(canFence('SoftReboot')).toBe(false);
    const v = judgeFence({
      action: 'SoftReboot',
      provider: { kind: 'Fenced', how: 'ResetObserved', evidence: 'x' },
      bootIdBefore: 'a',
      bootIdNow: 'b',
    });
    expect(v).toMatchObject({ fenced: false });
  });

  it('a site step (Command, Webhook) never fences: its status says the job was taken, not that the machine is off', () => {
    for (const action of ['Command', 'Webhook'] as const) {
      expect(canFence(action)).toBe(false);
      expect(
        judgeFence({
          action,
          provider: { kind: 'Fenced', how: 'Deleted', evidence: 'x' },
          bootIdBefore: 'a',
          bootIdNow: 'b',
        }),
      ).toMatchObject({ fenced: false });
    }
  });

  it('a hard reset counts only once observed: accepted is not enough', () => {
    expect(judgeFence({ action: 'HardReboot' })).toMatchObject({ fenced: false });
    expect(
      judgeFence({
        action: 'HardReboot',
        provider: { kind: 'NotFenced', reason: 'reboot pending' },
        bootIdBefore: 'a',
        bootIdNow: 'a',
      }),
    ).toEqual({ fenced: false, reason: 'reboot pending' });
  });

  it('the provider reporting power off, deletion or an observed reset fences', () => {
    for (const how of ['PoweredOff', 'ResetObserved', 'Deleted'] as const)
      expect(
        judgeFence({ action: 'PowerOff', provider: { kind: 'Fenced', how, evidence: 'e' } }),
      ).toEqual({ fenced: true, how, evidence: 'e' });
  });

  it('a new bootID after a reset-like action fences, even when the provider cannot be asked', () => {
    const v = judgeFence({
      action: 'HardReboot',
      provider: { kind: 'Unavailable', reason: 'nova 503' },
      bootIdBefore: 'a',
      bootIdNow: 'b',
    });
    expect(v).toMatchObject({ fenced: true, how: 'ResetObserved' });
  });

  it('an unknown or empty bootID proves nothing; an outage is not a fence', () => {
    expect(judgeFence({ action: 'HardReboot', bootIdBefore: '', bootIdNow: 'b' })).toMatchObject({
      fenced: false,
    });
    expect(judgeFence({ action: 'HardReboot', bootIdNow: 'b' })).toMatchObject({ fenced: false });
    expect(
      judgeFence({ action: 'Replace', provider: { kind: 'Unavailable', reason: 'down' } }),
    ).toEqual({ fenced: false, reason: 'the provider could not be asked: down' });
  });
});

describe('DryRunProvider', () => {
  it('executes an action id once and never fences', async () => {
    const p = new DryRunProvider();
    const req = {
      node: 'n',
      providerID: 'x:///1',
      action: 'HardReboot' as const,
      actionId: 'id-1',
      issuedAt: 0,
      replay: false,
    };
    // Called through the port, with the context every caller passes (the dry run ignores it).
    const port: MachineProvider = p;
    expect((await port.execute(req, { signal })).kind).toBe('Accepted');
    expect((await port.execute({ ...req, replay: true }, { signal })).kind).toBe('Accepted');
    expect(p.requests).toHaveLength(2);
    expect(p.executedActionIds()).toEqual(['id-1']);
    expect((await port.fence({ ...req }, { signal })).kind).toBe('NotFenced');
  });
});
