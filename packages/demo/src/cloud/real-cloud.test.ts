import { describe, expect, it } from 'vitest';
import { changesSince, newReboots, parseChangedServers } from './nova-records.js';
import { serial } from './serial.js';

describe("Nova's records of the demo's servers", () => {
  it('reads the changed and the deleted servers of GET /servers/detail', () => {
    const servers = parseChangedServers({
      servers: [
        {
          id: 'a',
          status: 'ACTIVE',
          updated: '2026-12-05T12:00:01Z',
          'OS-EXT-STS:task_state': null,
        },
        { id: 'b', status: 'DELETED', updated: '2026-12-05T12:00:02Z' },
        {
          id: 'c',
          status: 'REBOOT',
          updated: '2026-12-05T12:00:03Z',
          'OS-EXT-STS:task_state': 'reboot_started',
        },
        { status: 'ACTIVE' },
      ],
    });
    expect(servers).toEqual([
      { id: 'a', status: 'ACTIVE', updated: '2026-12-05T12:00:01Z', taskState: null },
      { id: 'b', status: 'DELETED', updated: '2026-12-05T12:00:02Z', taskState: null },
      { id: 'c', status: 'REBOOT', updated: '2026-12-05T12:00:03Z', taskState: 'reboot_started' },
    ]);
    expect(() => parseChangedServers({ server: {} })).toThrow(/no "servers" array/);
  });

  it('asks for changes a few whole seconds before the last look', () => {
    expect(changesSince(Date.parse('2026-12-05T12:00:10.700Z'))).toBe('2026-12-05T12:00:05Z');
    expect(changesSince(Date.parse('2026-12-05T12:00:10.700Z'), 0)).toBe('2026-12-05T12:00:10Z');
  });

  it('finds the reboots not seen before, in UTC, with the type left open', () => {
    const actions = [
      { action: 'create', requestId: 'req-0', startTime: '2026-12-05T11:59:00.000000' },
      { action: 'reboot', requestId: 'req-1', startTime: '2026-12-05T12:00:00.000000' },
      { action: 'reboot', requestId: 'req-2', startTime: '2026-12-05T12:00:30Z' },
      { action: 'stop', requestId: 'req-3', startTime: '2026-12-05T12:01:00.000000' },
    ];
    expect(newReboots('s1', actions, new Set(['req-1']))).toEqual([
      {
        at: Date.parse('2026-12-05T12:00:30Z'),
        serverId: 's1',
        type: undefined,
        requestId: 'req-2',
      },
    ]);
    expect(newReboots('s1', actions, new Set()).map((r) => [r.requestId, r.at])).toEqual([
      ['req-1', Date.parse('2026-12-05T12:00:00Z')],
      ['req-2', Date.parse('2026-12-05T12:00:30Z')],
    ]);
  });
});

describe('serial', () => {
  it('runs one function at a time, in order, and goes on after a failure', async () => {
    const one = serial();
    const log: string[] = [];
    let active = 0;
    let most = 0;
    const job = (name: string, ms: number, fail = false) =>
      one(async () => {
        active++;
        most = Math.max(most, active);
        log.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`end ${name}`);
        active--;
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([job('a', 30), job('b', 5, true), job('c', 1)]);
    expect(most).toBe(1);
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
