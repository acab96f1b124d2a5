import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import { formatSummary } from './format.js';
import { summarize, type ScenarioResult } from './summarize.js';

const ok: ScenarioResult = {
  id: 'a',
  title: 'kubelet stops',
  expectation: 'reboot',
  verdict: { ok: true, lines: ['ok   x'] },
};
const bad: ScenarioResult = {
  id: 'b',
  title: 'storm',
  expectation: 'held',
  verdict: { ok: false, lines: ['FAIL y'] },
};

function record() {
  return buildRecord(
    [
      {
        t: 0,
        samples: [
          sample('zone-a-03', 'True'),
          sample('zone-b-07', 'True'),
          sample('zone-c-02', 'True'),
          sample('zone-a-09', 'True'),
        ],
      },
      {
        t: 2000,
        samples: [
          sample('zone-a-03', 'Unknown', 'Suspect'),
          sample('zone-b-07', 'Unknown', 'Suspect'),
          sample('zone-c-02', 'False', 'Unhealthy'),
          sample('zone-a-09', 'False', 'Waiting'),
        ],
      },
      {
        t: 40000,
        samples: [
          sample('zone-a-03', 'True'),
          sample('zone-b-07-r1', 'True'),
          sample('zone-c-02', 'True'),
          sample('zone-a-09', 'True'),
        ],
      },
    ],
    [
      { t: 8000, node: 'zone-a-03', source: 'nova', kind: 'SoftReboot' },
      { t: 14000, node: 'zone-a-03', source: 'noderepair', kind: 'RepairSucceeded' },
      { t: 8000, node: 'zone-b-07', source: 'nova', kind: 'SoftReboot' },
      { t: 24000, node: 'zone-b-07', source: 'nova', kind: 'HardReboot' },
      { t: 39000, node: 'zone-b-07', source: 'machine', kind: 'Replaced' },
      {
        t: 9000,
        node: 'zone-c-02',
        source: 'noderepair',
        kind: 'StormGuardHeld',
        note: 'unhealthy (x) but held: storm guard: 4 of 10 nodes unhealthy in zone=zone-c (limit 3)',
      },
    ],
  );
}

describe('summarize', () => {
  it('counts repairs per kind, times each repair, lists what the guard held and what was waited for', () => {
    const s = summarize(record(), [ok]);
    expect(s.repairsByKind).toEqual({ SoftReboot: 2, HardReboot: 1, Replace: 1 });
    expect(s.repairs).toEqual([
      { node: 'zone-a-03', steps: ['SoftReboot'], ms: 12000, outcome: 'repaired' },
      {
        node: 'zone-b-07',
        steps: ['SoftReboot', 'HardReboot', 'Replace'],
        ms: 38000,
        outcome: 'replaced by zone-b-07-r1',
      },
    ]);
    expect(s.guardHeld).toEqual([
      { node: 'zone-c-02', note: expect.stringContaining('limit 3'), rebooted: false },
    ]);
    expect(s.waitedFor).toEqual(['zone-a-09']);
    expect(s.nodes).toBe(4);
    expect(s.ok).toBe(true);
  });

  it('is not ok when one scenario failed, and the text says which', () => {
    const s = summarize(record(), [ok, bad]);
    expect(s.ok).toBe(false);
    const text = formatSummary(s).join('\n');
    expect(text).toContain('FAIL  storm — held');
    expect(text).toContain('1 of 2 scenarios did NOT behave as expected');
  });

  it('formats the figures', () => {
    const text = formatSummary(summarize(record(), [ok])).join('\n');
    expect(text).toContain('repairs per kind: SoftReboot 2, HardReboot 1, Replace 1');
    expect(text).toMatch(/zone-a-03 +12\.0s {2}SoftReboot {2}repaired/);
    expect(text).toContain(
      'storm guard: held 1 node(s), 1 reboot(s) prevented (4 of 10 nodes unhealthy in zone=zone-c (limit 3))',
    );
    expect(text).toContain('waited for, not rebooted (shutting down): zone-a-09');
    expect(text).toContain('all 1 scenarios behaved as expected');
  });
});
