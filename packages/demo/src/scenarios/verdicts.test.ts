// Each scenario's verdict on hand-made records: the behaviour it expects passes, and the
// wrong behaviours (a second reboot, a reboot in the storm zone, a shut-down node rebooted,
// no replacement) fail, naming what was expected.
import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import { flapping, notReadyEpisodes } from './flapping.js';
import { kubeletStops } from './kubelet-stops.js';
import { neverReturns } from './never-returns.js';
import { runtimeDown } from './runtime-down.js';
import { shuttingDown } from './shutting-down.js';
import { zoneStorm } from './zone-storm.js';
import { bystanders } from './bystanders.js';
import { demoScenarios, NODES_PER_ZONE, ZONES } from './index.js';

const N = 'zone-a-03';
const ev = (
  t: number,
  kind: string,
  source: 'noderepair' | 'nova' | 'machine' | 'scenario' = 'noderepair',
  node = N,
  note = '',
) => ({
  t,
  node,
  source,
  kind,
  note,
});

function kubeletRecord(extraReboot = false) {
  return buildRecord(
    [
      { t: 0, samples: [sample(N, 'True')] },
      { t: 9000, samples: [sample(N, 'Unknown', 'Suspect')] },
      { t: 14000, samples: [sample(N, 'Unknown', 'Remediating', { unschedulable: true })] },
      { t: 17000, samples: [sample(N, 'True', 'Verifying', { unschedulable: true })] },
      { t: 21000, samples: [sample(N, 'True', 'Healthy')] },
    ],
    [
      ev(14000, 'RepairStarted'),
      ev(14100, 'Cordoned'),
      ev(14200, 'Drained'),
      ev(14300, 'SoftReboot', 'nova'),
      ...(extraReboot ? [ev(15000, 'HardReboot', 'nova')] : []),
      ev(21000, 'RepairSucceeded'),
    ],
  );
}

describe('kubelet stops', () => {
  it('passes on Unknown -> cordon -> drain -> one soft reboot -> healthy', () => {
    const v = kubeletStops(N).verify(kubeletRecord());
    expect(v.lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(v.ok).toBe(true);
    expect(kubeletStops(N).settled(kubeletRecord())).toBe(true);
  });

  it('fails on a second reboot', () => {
    const v = kubeletStops(N).verify(kubeletRecord(true));
    expect(v.ok).toBe(false);
    expect(v.lines.find((l) => l.startsWith('FAIL'))).toContain('saw: SoftReboot, HardReboot');
  });
});

describe('runtime down', () => {
  it('needs the kubelet message and the ContainerRuntimeDown cause', () => {
    const msg = { readyMessage: 'container runtime is down' };
    const good = buildRecord(
      [
        { t: 0, samples: [sample(N, 'False', 'Suspect', msg)] },
        {
          t: 6000,
          samples: [
            sample(N, 'False', 'Verifying', {
              ...msg,
              cause: 'ContainerRuntimeDown',
              unschedulable: true,
            }),
          ],
        },
        { t: 12000, samples: [sample(N, 'True')] },
      ],
      [ev(6000, 'SoftReboot', 'nova'), ev(12000, 'RepairSucceeded')],
    );
    expect(runtimeDown(N).verify(good).ok).toBe(true);
    const wrongCause = buildRecord(
      [
        { t: 0, samples: [sample(N, 'False', 'Verifying', { ...msg, cause: 'Other' })] },
        { t: 12000, samples: [sample(N, 'True')] },
      ],
      [ev(6000, 'SoftReboot', 'nova'), ev(12000, 'RepairSucceeded')],
    );
    const v = runtimeDown(N).verify(wrongCause);
    expect(v.ok).toBe(false);
    expect(v.lines.join('\n')).toContain('FAIL classified ContainerRuntimeDown (saw: Other)');
  });
});

describe('flapping', () => {
  const F = 'zone-b-02';
  // Three episodes dated by the API server (readySince), the last one still open when the
  // repair starts; the demo looked at odd moments (t), which must not matter.
  const flaps = (downMs: number, note: string, counted = 3) => {
    const steps = [];
    for (let i = 0; i < 3; i++) {
      const from = i * 5000;
      steps.push({
        t: from + 700,
        samples: [
          sample(F, 'False', 'Suspect', { readySince: from, episodes: Math.min(i + 1, counted) }),
        ],
      });
      if (i < 2)
        steps.push({
          t: from + downMs + 900,
          samples: [sample(F, 'True', 'Healthy', { readySince: from + downMs })],
        });
    }
    steps.push({
      t: 13000,
      samples: [sample(F, 'False', 'Remediating', { readySince: 10000, episodes: counted })],
    });
    steps.push({ t: 20000, samples: [sample(F, 'True', 'Healthy', { readySince: 16000 })] });
    return buildRecord(steps, [
      { t: 10800, node: F, source: 'noderepair', kind: 'RepairStarted', note },
      { t: 11000, node: F, source: 'nova', kind: 'SoftReboot' },
      { t: 20000, node: F, source: 'noderepair', kind: 'RepairSucceeded' },
    ]);
  };
  const flapNote =
    'starting repair: PLEGUnhealthy: flapping: 3 NotReady episodes within 5m (limit 3)';

  it('dates episodes by the API server, not by when they were seen', () => {
    const rec = flaps(2000, flapNote);
    expect(notReadyEpisodes(rec, F, 10800)).toEqual([
      { from: 0, to: 2000 },
      { from: 5000, to: 7000 },
    ]);
  });

  it('passes when noderepair caught short episodes as flapping', () => {
    const v = flapping(F).verify(flaps(2000, flapNote));
    expect(v.lines.filter((l) => l.startsWith('FAIL'))).toEqual([]);
  });

  it('fails when the repair came from a timeout, or noderepair did not count the episodes', () => {
    const timeout = flapping(F).verify(
      flaps(2000, 'starting repair: PLEGUnhealthy: Ready=False for more than 8s'),
    );
    expect(timeout.ok).toBe(false);
    expect(timeout.lines.join('\n')).toContain(
      'FAIL repair started for flapping, not for a timeout',
    );
    const uncounted = flapping(F).verify(flaps(2000, flapNote, 2));
    expect(uncounted.lines.join('\n')).toContain(
      'FAIL noderepair counted at least 3 NotReady episodes (counted 2; lengths as the API server dated them: 2.0s, 2.0s; timeout 8s)',
    );
  });
});

describe('never returns', () => {
  const B = 'zone-b-07';
  const R = 'zone-b-07-r1';
  it('passes on soft, hard, replace and a Ready successor; fails without the successor', () => {
    const steps = [
      { t: 0, samples: [sample(B, 'Unknown', 'Suspect')] },
      { t: 40000, samples: [sample(R, 'True')] },
    ];
    const actions = [
      ev(5000, 'SoftReboot', 'nova', B),
      ev(21000, 'HardReboot', 'nova', B),
      ev(37000, 'ActionAccepted', 'noderepair', B, 'Replace zone-b-07/1/Replace-1 via x'),
      ev(38000, 'Replaced', 'machine', B),
    ];
    expect(neverReturns(B).verify(buildRecord(steps, actions)).ok).toBe(true);
    expect(neverReturns(B).settled(buildRecord(steps, actions))).toBe(true);
    const noSuccessor = buildRecord([{ t: 0, samples: [sample(B, 'Unknown', 'Failed')] }], actions);
    expect(neverReturns(B).verify(noSuccessor).ok).toBe(false);
  });
});

describe('zone storm', () => {
  const nodes = ['zone-c-02', 'zone-c-04'];
  const zone = 'topology.kubernetes.io/zone=zone-c';
  const table = (held: readonly string[]) => [
    'NAME        PHASE       CAUSE   STEP   NEXT   REASON',
    'zone-c-01   Healthy     None    -      -      healthy',
    ...nodes.map((n) =>
      held.includes(n)
        ? `${n}   Unhealthy   NotReady   -   30s   held: storm guard: 2 of 5 nodes unhealthy in ${zone} (limit 1)`
        : `${n}   Suspect     NotReady   -   3s    Ready=False for 5s`,
    ),
  ];
  const storm = (reboot: boolean, held: readonly string[] | null = nodes) => {
    const rec = buildRecord(
      [
        { t: 0, samples: nodes.map((n) => sample(n, 'False', 'Suspect')) },
        { t: 6000, samples: nodes.map((n) => sample(n, 'False', 'Unhealthy')) },
        { t: 20000, samples: nodes.map((n) => sample(n, 'True')) },
      ],
      [
        ...nodes.map((n) =>
          ev(6000, 'StormGuardHeld', 'noderepair', n, 'storm guard: 2 of 5 nodes unhealthy'),
        ),
        ...(reboot ? [ev(7000, 'SoftReboot', 'nova', 'zone-c-04')] : []),
      ],
    );
    if (held !== null)
      rec.statusRuns.push({
        t: 8000,
        scenario: 'zone-storm',
        command: 'noderepair status --kubeconfig k --policy p',
        code: 0,
        lines: table(held),
        stderr: '',
      });
    return rec;
  };
  it('passes when every node was held, shown held by `noderepair status`, and none rebooted', () => {
    const v = zoneStorm('zone-c', nodes, 5).verify(storm(false));
    expect(v.ok).toBe(true);
    expect(v.lines.join('\n')).toContain(
      'ok   `noderepair status` at 8.0s showed 2 of 2 held by the storm guard in zone-c with its counts',
    );
  });
  it('takes the StormGuardHeld Event as the judgement when the poll missed the Unhealthy phase', () => {
    // The annotation's Unhealthy phase lasted 3 s and the once-a-second poll never saw it.
    const missed = (note: string) =>
      buildRecord(
        [
          { t: 0, samples: nodes.map((n) => sample(n, 'False', 'Suspect')) },
          { t: 20000, samples: nodes.map((n) => sample(n, 'True')) },
        ],
        nodes.map((n) => ev(6000, 'StormGuardHeld', 'noderepair', n, note)),
      );
    const judged = zoneStorm('zone-c', nodes, 5).verify(
      missed(
        'unhealthy (Ready=False for more than 8s) but held: storm guard: 2 of 5 nodes unhealthy',
      ),
    );
    expect(judged.lines.join('\n')).toContain(
      'ok   each was judged unhealthy (timeout passed) and still not repaired (2 of 2)',
    );
    const notJudged = zoneStorm('zone-c', nodes, 5).verify(
      missed('storm guard: 2 of 5 nodes unhealthy'),
    );
    expect(notJudged.ok).toBe(false);
    expect(notJudged.lines.join('\n')).toContain(
      'FAIL each was judged unhealthy (timeout passed) and still not repaired (0 of 2)',
    );
  });
  it('fails when one was rebooted anyway', () => {
    const v = zoneStorm('zone-c', nodes, 5).verify(storm(true));
    expect(v.ok).toBe(false);
    expect(v.lines.join('\n')).toContain('rebooted: zone-c-04');
  });
  it('fails when `noderepair status` did not show every node held, or never ran', () => {
    const partly = zoneStorm('zone-c', nodes, 5).verify(storm(false, ['zone-c-02']));
    expect(partly.ok).toBe(false);
    expect(partly.lines.join('\n')).toContain(
      'FAIL `noderepair status` at 8.0s showed 1 of 2 held',
    );
    const never = zoneStorm('zone-c', nodes, 5).verify(storm(false, null));
    expect(never.ok).toBe(false);
    expect(never.lines.join('\n')).toContain('(it never ran)');
  });
});

describe('shutting down', () => {
  const S = 'zone-a-09';
  it('fails when noderepair rebooted a node that was shutting down', () => {
    const rec = buildRecord(
      [
        { t: 0, samples: [sample(S, 'False', 'Waiting')] },
        { t: 12000, samples: [sample(S, 'True')] },
      ],
      [ev(8000, 'SoftReboot', 'nova', S)],
    );
    const v = shuttingDown(S).verify(rec);
    expect(v.ok).toBe(false);
    expect(v.lines.join('\n')).toContain(
      'FAIL no repair, no reboot by noderepair (Nova reboots: SoftReboot)',
    );
  });
});

describe('bystanders', () => {
  it('fails when noderepair touched one', () => {
    const rec = buildRecord(
      [{ t: 0, samples: [sample('zone-a-01', 'True'), sample('zone-a-02', 'True')] }],
      [ev(1, 'Cordoned', 'noderepair', 'zone-a-02')],
    );
    expect(bystanders(['zone-a-01']).verify(rec).ok).toBe(true);
    expect(bystanders(['zone-a-01', 'zone-a-02']).verify(rec).ok).toBe(false);
  });
});

describe('the cast', () => {
  it('covers every node once, at least 24 nodes, at most 3 unhealthy per non-storm zone', () => {
    const cast = demoScenarios();
    const all = cast.flatMap((s) => s.nodes);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(ZONES.length * NODES_PER_ZONE);
    expect(all.length).toBeGreaterThanOrEqual(24);
    const troubled = cast
      .filter((s) => s.id !== 'bystanders' && s.id !== 'zone-storm')
      .flatMap((s) => s.nodes);
    for (const z of ZONES)
      expect(troubled.filter((n) => n.startsWith(`${z}-`)).length).toBeLessThanOrEqual(3);
    const storm = cast.find((s) => s.id === 'zone-storm');
    expect((storm?.nodes.length ?? 0) / NODES_PER_ZONE).toBe(0.4);
  });
});
