// Fault 5: storms, against core's standalone auto-repair controller (`noderepair run` as a
// real process, with a ServiceAccount token bound to examples/standalone/rbac.yaml). Ten fake
// kubelets in three zones; the storm guard allows 40 % unhealthy, 1 unhealthy node per zone
// and 2 repairs in flight. A sampler reads every Node's persisted repair state (the
// annotation) all along: the number of repairs in flight never exceeds what the guard allows.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKubeClient,
  EventResource,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
} from '@noderepair/core/kube';
import {
  freePort,
  startControlPlane,
  startFakeKubelet,
  type ControlPlane,
  type FakeKubelet,
} from '@noderepair/envtest';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ControllerProcess,
  fakeRecordingProviderModule,
  noderepairCliMain,
  repoRoot,
} from '../src/controller-process.js';
import {
  applyObjects,
  serviceAccountToken,
  tokenKubeconfig,
  type ManifestObject,
} from '../src/least-privilege.js';
import { doubleActions, recordedRequests } from '../src/provider-record.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { sleep, until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const ZONE = 'topology.kubernetes.io/zone';
const SCOPE = 'chaos.noderepair.dev/storm';
const STATE = 'noderepair.io/repair-state';
const ZONES = [
  'zone-a',
  'zone-a',
  'zone-a',
  'zone-a',
  'zone-b',
  'zone-b',
  'zone-b',
  'zone-c',
  'zone-c',
  'zone-c',
];
const MAX_IN_FLIGHT = 2;

const POLICY = {
  // Longer than it takes (on a loaded machine) for all nodes of a storm to show NotReady:
  // the guard must see the whole storm before any node's timeout makes it a candidate.
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
  ladder: [{ action: 'SoftReboot', timeout: '10m' }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  drain: { enabled: false },
  stormGuard: {
    maxUnhealthy: '40%',
    maxInFlight: MAX_IN_FLIGHT,
    failureDomainLabel: ZONE,
    maxUnhealthyPerDomain: 1,
    recheckInterval: '1s',
  },
};

interface Sample {
  inFlight: string[];
}

describe('storms against the standalone auto-repair controller', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let proc: ControllerProcess;
  const kubelets: FakeKubelet[] = [];
  const names: string[] = [];
  let dir: string;
  let token: string;
  let samples: Sample[] = [];
  let sampling: NodeJS.Timeout | undefined;

  async function inFlightNow(): Promise<string[]> {
    const nodes = (await client.list<KubeNode>(NodeResource, { labelSelector: SCOPE })).items;
    return nodes
      .filter((n) => {
        const raw = n.metadata?.annotations?.[STATE];
        if (!raw) return false;
        const phase = (JSON.parse(raw) as { phase?: string }).phase;
        return phase === 'Remediating' || phase === 'Verifying';
      })
      .map((n) => n.metadata?.name ?? '');
  }

  /**
   * When an Event last happened. The recorder folds a repeat (same node, reason and note within
   * 30 min) into the first Event's series, so a hold seen again in a later test keeps the
   * earlier eventTime: only series.lastObservedTime says it happened again.
   */
  const lastSeen = (e: KubeEvent) =>
    Date.parse(e.series?.lastObservedTime ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '');

  /**
   * Where this test's events begin: now, after allHealthyAgain. Not earlier: the previous
   * test's nodes are held (and their StormGuardHeld series extended) until the controller
   * sees them Ready, i.e. until just before allHealthyAgain returns, so a look-back would
   * take the previous storm's last holds for this one's. The controller stamps events with
   * the same host clock, in milliseconds, and records a hold within the reconcile that
   * decided it; a node's reconciles never overlap, so every hold of the previous storm is
   * stamped before the Healthy write allHealthyAgain waited for, i.e. before this instant.
   */
  const stormStart = () => Date.now();

  async function started(since: number): Promise<KubeEvent[]> {
    return (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
      (e) =>
        e.reason === 'RepairStarted' &&
        names.includes(e.regarding?.name ?? '') &&
        lastSeen(e) >= since,
    );
  }

  async function held(nodes: string[], since = 0): Promise<KubeEvent[]> {
    return (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
      (e) =>
        e.reason === 'StormGuardHeld' &&
        nodes.includes(e.regarding?.name ?? '') &&
        lastSeen(e) >= since,
    );
  }

  async function allHealthyAgain(): Promise<void> {
    await until(
      'every node healthy and no repair in flight',
      async () => {
        const nodes = (await client.list<KubeNode>(NodeResource, { labelSelector: SCOPE })).items;
        return nodes.every((n) => {
          const raw = n.metadata?.annotations?.[STATE];
          const phase = raw ? (JSON.parse(raw) as { phase?: string }).phase : 'Healthy';
          return phase === 'Healthy' && n.spec?.unschedulable !== true;
        });
      },
      180_000,
      500,
    );
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-storm-'));
    cp = await startControlPlane({ startTimeoutMs: 120_000 });
    client = createKubeClient(cp.kubeConfig);
    // The shipped least-privilege RBAC of the standalone controller, verbatim.
    const rbac = YAML.parseAllDocuments(
      readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null);
    await applyObjects(cp.kubeConfig, rbac);
    token = await serviceAccountToken(cp.kubeConfig, 'noderepair-system', 'noderepair');
    const kubeconfig = tokenKubeconfig(
      join(dir, 'kubeconfig'),
      cp.server,
      cp.caPem,
      token,
      'noderepair',
    );
    for (const [i, zone] of ZONES.entries()) {
      const name = `storm-${i}`;
      names.push(name);
      kubelets.push(
        await startFakeKubelet(cp.kubeConfig, {
          name,
          labels: { [SCOPE]: 'yes', [ZONE]: zone },
          heartbeatSeconds: 2,
        }),
      );
    }
    const policyPath = join(dir, 'policy.yaml');
    writeFileSync(policyPath, YAML.stringify(POLICY));
    const probe = await freePort();
    proc = ControllerProcess.start({
      name: 'noderepair-run',
      entry: noderepairCliMain,
      args: [
        'run',
        '--kubeconfig',
        kubeconfig,
        '--policy',
        policyPath,
        '--provider-module',
        fakeRecordingProviderModule,
        '--label-selector',
        SCOPE,
        '--leader-elect',
        '--leader-election-namespace',
        'noderepair-system',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        `127.0.0.1:${probe}`,
      ],
      env: { POD_NAME: 'noderepair-0' },
      logFile: join(chaosDir(), 'storm.log'),
    });
    proc.probePort = probe;
    await until('the controller healthy', async () => (await proc.healthy()) || undefined);
    sampling = setInterval(() => {
      inFlightNow().then(
        (inFlight) => samples.push({ inFlight }),
        () => undefined,
      );
    }, 250);
  });

  afterAll(async () => {
    if (sampling) clearInterval(sampling);
    await proc?.stop();
    for (const k of kubelets) await k.stop().catch(() => undefined);
    await cp?.stop();
  });

  async function storm(
    variant: string,
    failing: number[],
    expectStarted: number,
    windowMs = 8_000,
  ): Promise<number> {
    await allHealthyAgain();
    samples = [];
    const since = stormStart();
    const logFrom = proc.lines.length;
    await Promise.all(failing.map((i) => kubelets[i]!.setNotReady()));
    try {
      const failingNames = failing.map((i) => names[i]!);
      if (expectStarted > 0)
        await until(`${expectStarted} repairs started`, async () =>
          (await started(since)).length >= expectStarted ? true : undefined,
        );
      else
        await until('the storm guard to hold them', async () =>
          (await held(failingNames, since)).length > 0 ? true : undefined,
        );
      // Keep watching for several recheck intervals: nothing more may start.
      await sleep(windowMs);
      const startedNow = await started(since);
      const maxInFlight = Math.max(0, ...samples.map((s) => s.inFlight.length));
      // The provider's record of this storm's window: one action per node at most.
      const doubles = doubleActions(recordedRequests(proc.lines.slice(logFrom)));
      record({
        fault: 'storm (core autorepair storm guard)',
        variant,
        injected: failing.length,
        survived:
          startedNow.length === expectStarted &&
          maxInFlight <= MAX_IN_FLIGHT &&
          doubles.doubles === 0
            ? failing.length
            : 0,
        doubleReboots: doubles.doubles,
        crashes: proc.crashed ? 1 : 0,
        fuzzInputs: 0,
        note: `${startedNow.length} repairs started (allowed ${expectStarted}), max in flight ${maxInFlight}; the provider recorded ${doubles.requests} requests`,
      });
      expect(doubles.details).toEqual([]);
      expect(startedNow.map((e) => e.regarding?.name).sort()).toHaveLength(expectStarted);
      for (const e of startedNow) expect(failingNames).toContain(e.regarding?.name);
      expect(maxInFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
      expect(proc.running).toBe(true);
      return since;
    } finally {
      await Promise.all(failing.map((i) => kubelets[i]!.setReady()));
    }
  }

  it('control: one node NotReady is repaired (the guard is not just blocking everything)', async () => {
    await storm('1 of 10 NotReady', [0], 1, 2_000);
  });

  it('three nodes in three zones NotReady: never more than maxInFlight (2) at once', async () => {
    await storm('3 of 10 NotReady, 3 zones', [1, 4, 7], 2);
  });

  it('50 % of the nodes NotReady at once: no repair starts', async () => {
    await storm('50% NotReady at once', [0, 2, 4, 6, 8], 0);
  });

  it('a whole zone NotReady: no repair starts in it', async () => {
    // This storm's holds only: storm-0 and storm-2 were also held (fleet-wide) by the 50 % storm.
    const z = await storm('zone-a down (4 of 10)', [0, 1, 2, 3], 0).then((since) =>
      held(names.slice(0, 4), since),
    );
    expect(z.some((e) => (e.note ?? '').includes('zone-a'))).toBe(true);
  });

  it('a zone storm that ends one node at a time: its last node is not rebooted (cooldown)', async () => {
    // Storms end node by node. Once three of zone-a's four nodes are back, the zone is under
    // its limit (1) while the last one is still NotReady and long past its timeout: without
    // the storm guard's cooldown it would be rebooted within a recheck interval (1 s).
    await allHealthyAgain();
    const failing = [0, 1, 2, 3];
    const failingNames = failing.map((i) => names[i]!);
    const since = stormStart();
    const logFrom = proc.lines.length;
    await Promise.all(failing.map((i) => kubelets[i]!.setNotReady()));
    try {
      await until('the storm guard to hold all four', async () => {
        const h = new Set((await held(failingNames, since)).map((e) => e.regarding?.name));
        return h.size === failing.length ? true : undefined;
      });
      for (const i of failing.slice(0, 3)) {
        await kubelets[i]!.setReady();
        await sleep(3_000); // three recheck intervals between recoveries
      }
      // The zone has been under its limit for 3 s; give the guard 5 s more to get it wrong.
      await sleep(5_000);
      const startedNow = await started(since);
      const cooling = (await held([names[3]!], since)).filter((e) =>
        (e.note ?? '').includes('cooldown'),
      );
      // Nothing may start here, so the provider must have recorded nothing at all.
      const requests = recordedRequests(proc.lines.slice(logFrom));
      const doubles = doubleActions(requests);
      record({
        fault: 'storm (core autorepair storm guard)',
        variant: 'zone-a storm ends one node at a time',
        injected: failing.length,
        survived: startedNow.length === 0 && requests.length === 0 ? failing.length : 0,
        doubleReboots: doubles.doubles,
        crashes: proc.crashed ? 1 : 0,
        fuzzInputs: 0,
        note: `${startedNow.length} repairs started (allowed 0); the last node held for the cooldown: ${cooling.length > 0}`,
      });
      expect(startedNow.map((e) => e.regarding?.name)).toEqual([]);
      expect(requests).toEqual([]);
      expect(cooling.length).toBeGreaterThan(0);
      expect(proc.running).toBe(true);
    } finally {
      await Promise.all(failing.map((i) => kubelets[i]!.setReady()));
    }
  });

  it('no credential in its log lines or events', async () => {
    const events = (await client.list<KubeEvent>(EventResource)).items;
    const r = scanForSecrets(proc.lines, events, [token, cp.adminToken]);
    record({
      fault: 'secret scan (logs + events)',
      variant: 'storm runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(10);
    expect(r.leaks).toEqual([]);
    expect(proc.crashed).toBe(false);
  });
});
