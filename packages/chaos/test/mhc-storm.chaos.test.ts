// Fault 5, Cluster API side: in a capo cluster the MachineHealthCheck decides how many
// OpenStackRemediations exist at all (it creates them only while remediation is allowed).
// core's mhc/ evaluates an MHC exactly as Cluster API does; here it gets storms: every node
// of a fleet NotReady in random numbers (fast-check, fixed seed), 50 % at once, a whole zone.
// Remediation is allowed only while unhealthy <= maxUnhealthy (percent rounded down), and then
// never for more machines than the limit leaves.
import {
  decodeMachineHealthCheck,
  evaluateMachineHealthCheck,
  type MhcPolicy,
  type MhcTarget,
} from '@noderepair/core/mhc';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { NOT_MEASURED, record } from './support/chaos-file.js';

const SEED = 20261202;
const NOW = Date.parse('2026-12-02T12:00:00Z');
const LONG_AGO = '2026-12-02T11:00:00Z';

function mhc(maxUnhealthy: string): MhcPolicy {
  const r = decodeMachineHealthCheck({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineHealthCheck',
    metadata: { name: 'workers', namespace: 'default' },
    spec: {
      clusterName: 'chaos',
      selector: { matchLabels: { pool: 'workers' } },
      checks: {
        nodeStartupTimeoutSeconds: 600,
        unhealthyNodeConditions: [
          { type: 'Ready', status: 'False', timeoutSeconds: 300 },
          { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
        ],
      },
      remediation: {
        triggerIf: { unhealthyLessThanOrEqualTo: maxUnhealthy },
        templateRef: {
          apiVersion: 'remediation.noderepair.dev/v1alpha1',
          kind: 'OpenStackRemediationTemplate',
          name: 'openstack-reboot',
        },
      },
    },
  });
  if (E.isLeft(r)) throw new Error(r.left);
  return r.right;
}

function fleet(zones: readonly string[], unhealthy: ReadonlySet<number>): MhcTarget[] {
  return zones.map((zone, i) => {
    const name = `worker-${i}`;
    return {
      machine: {
        metadata: {
          name,
          namespace: 'default',
          creationTimestamp: '2026-12-01T00:00:00Z',
          labels: { pool: 'workers', 'topology.kubernetes.io/zone': zone },
        },
        status: { nodeRef: { name }, conditions: [] },
      },
      node: {
        metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
        status: {
          conditions: [
            {
              type: 'Ready',
              status: unhealthy.has(i) ? 'Unknown' : 'True',
              lastTransitionTime: LONG_AGO,
              lastHeartbeatTime: LONG_AGO,
            },
          ],
        },
      },
      nodeMissing: false,
    } as MhcTarget;
  });
}

const CLUSTER = {
  conditions: [
    { type: 'InfrastructureReady', status: 'True', lastTransitionTime: LONG_AGO },
    { type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: LONG_AGO },
  ],
};

describe('MachineHealthCheck maxUnhealthy under storms (core mhc, as Cluster API)', () => {
  it('random storms: remediation only within maxUnhealthy (fast-check)', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 100 }),
        fc.infiniteStream(fc.boolean()),
        (size, percent, coin) => {
          n += 1;
          const down = new Set<number>();
          const it = coin[Symbol.iterator]();
          for (let i = 0; i < size; i++) if (it.next().value) down.add(i);
          const e = evaluateMachineHealthCheck(
            fleet(
              Array.from({ length: size }, () => 'zone-a'),
              down,
            ),
            mhc(`${percent}%`),
            CLUSTER,
            NOW,
          );
          const limit = Math.floor((percent * size) / 100);
          expect(e.unhealthyCount).toBe(down.size);
          expect(e.remediationAllowed).toBe(down.size <= limit);
          // The MHC creates remediations only when allowed; then all of them fit the limit.
          const created = e.remediationAllowed ? e.unhealthy.length : 0;
          expect(created).toBeLessThanOrEqual(limit);
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
    console.log(`fuzz MHC storms: seed ${SEED}, ${n} fleets`);
    record({
      fault: 'storm (MHC maxUnhealthy, core mhc)',
      variant: 'random fleets and limits',
      injected: n,
      survived: n,
      // A pure decision over MHC specs: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: n,
    });
  });

  it('50 % NotReady at once with maxUnhealthy 40 %: no remediation', () => {
    const zones = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c'];
    const e = evaluateMachineHealthCheck(
      fleet(zones, new Set([0, 2, 4, 6, 8])),
      mhc('40%'),
      CLUSTER,
      NOW,
    );
    expect(e.remediationAllowed).toBe(false);
    expect(e.condition.reason).toBe('TooManyUnhealthy');
    expect(e.remediationsAllowed).toBe(0);
    record({
      fault: 'storm (MHC maxUnhealthy, core mhc)',
      variant: '50% NotReady, maxUnhealthy 40%',
      injected: 5,
      survived: e.remediationAllowed ? 0 : 5,
      // A pure decision over MHC specs: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
  });

  it('a whole zone (4 of 10) NotReady: Cluster API has no zone limit, 40 % allows exactly these 4', () => {
    const zones = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c'];
    const e = evaluateMachineHealthCheck(
      fleet(zones, new Set([0, 1, 2, 3])),
      mhc('40%'),
      CLUSTER,
      NOW,
    );
    expect(e.remediationAllowed).toBe(true);
    expect(e.unhealthy.map((t) => t.machine).sort()).toEqual([
      'worker-0',
      'worker-1',
      'worker-2',
      'worker-3',
    ]);
    expect(e.remediationsAllowed).toBe(0);
    const e3 = evaluateMachineHealthCheck(
      fleet(zones, new Set([0, 1, 2, 3])),
      mhc('30%'),
      CLUSTER,
      NOW,
    );
    expect(e3.remediationAllowed).toBe(false);
    record({
      fault: 'storm (MHC maxUnhealthy, core mhc)',
      variant: 'zone down (4 of 10), maxUnhealthy 40% / 30%',
      injected: 8,
      survived: e.remediationAllowed && !e3.remediationAllowed ? 8 : 0,
      // A pure decision over MHC specs: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
  });
});
