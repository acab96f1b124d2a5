import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import { changeLine, clock, nodeRows, screen, stripAnsi, timer } from './format.js';

const rec = () =>
  buildRecord(
    [
      {
        t: 0,
        samples: [
          sample('zone-a-01', 'True'),
          sample('zone-a-02', 'True'),
          sample('zone-a-03', 'Unknown', 'Remediating', {
            cause: 'KubeletUnreachable',
            step: 'SoftReboot',
            phaseSince: 1000,
            unschedulable: true,
          }),
        ],
      },
    ],
    [{ t: 1500, node: 'zone-a-03', source: 'noderepair', kind: 'Cordoned' }],
    4000,
  );

describe('nodeRows', () => {
  it('shows every node with Ready, phase, cause, step, timer, cordon and last action', () => {
    const rows = nodeRows(rec(), 4200, false);
    expect(rows[0]).toMatch(/^NODE +READY +PHASE +CAUSE +STEP +TIMER +CORDON +LAST ACTION$/);
    expect(rows).toHaveLength(4);
    expect(rows[3]).toMatch(
      /^zone-a-03 +Unknown +Remediating +KubeletUnreachable +SoftReboot +3s +yes +Cordoned$/,
    );
  });

  it('colours with ANSI only when asked, without changing the text', () => {
    const coloured = nodeRows(rec(), 4200, true);
    expect(coloured.join('\n')).toContain('\x1b[');
    expect(coloured.map(stripAnsi)).toEqual(nodeRows(rec(), 4200, false));
  });

  it('collapses untouched healthy nodes when the terminal is short', () => {
    const rows = nodeRows(rec(), 4200, false, 140, 2);
    expect(rows.map((r) => r.split(' ')[0])).toEqual(['NODE', 'zone-a-03', '…']);
    expect(rows[2]).toBe('… and 2 more nodes Ready and Healthy, untouched');
  });
});

describe('screen', () => {
  it('has a title, the scenarios and the table', () => {
    const lines = screen(
      rec(),
      4200,
      [{ title: 'kubelet stops', expectation: 'reboot', status: 'playing' }],
      false,
    );
    expect(lines[0]).toBe('noderepair demo — 3 nodes, 4.2s elapsed');
    expect(lines[2]).toMatch(/^▶ kubelet stops +reboot$/);
  });
});

describe('timer and clock', () => {
  it('count seconds in the current phase, nothing while Healthy', () => {
    expect(timer(sample('a', 'True'), 5000)).toBe('');
    expect(timer(sample('a', 'False', 'Suspect', { phaseSince: 2000 }), 5400)).toBe('3s');
    expect(clock(12345)).toBe('  12.3s');
  });
});

describe('changeLine', () => {
  it('says what changed, one line, and nothing for the first sighting', () => {
    const prev = sample('zone-a-03', 'True');
    const next = sample('zone-a-03', 'Unknown', 'Suspect', {
      readyMessage: 'Kubelet stopped posting node status.',
    });
    expect(changeLine({ type: 'node', t: 9100, sample: next, previous: prev })).toBe(
      '[   9.1s] zone-a-03       Ready=Unknown (Kubelet stopped posting node status.), phase Healthy -> Suspect',
    );
    expect(changeLine({ type: 'node', t: 0, sample: next, previous: undefined })).toBeUndefined();
    expect(changeLine({ type: 'gone', t: 1000, node: 'zone-b-07' })).toBe(
      '[   1.0s] zone-b-07       Node deleted',
    );
    expect(
      changeLine({
        type: 'action',
        action: {
          t: 15000,
          node: 'zone-a-03',
          source: 'nova',
          kind: 'SoftReboot',
          note: 'accepted',
        },
      }),
    ).toBe('[  15.0s] zone-a-03       nova SoftReboot: accepted');
  });
});
