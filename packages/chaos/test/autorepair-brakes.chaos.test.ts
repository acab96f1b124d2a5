// Rows of the brakes over time (issue 46).
//
// Row "latch survives SIGKILL": `noderepair run` as a real process (a
// ServiceAccount token bound to examples/standalone/rbac.yaml, the FAKE recording provider by
// `--provider-module`) with `stormGuard.latch`. Two of three nodes fail at once (over
// maxUnhealthy 1): the storm guard holds, and after afterHeldFor it latches, persisting the
// latch on the Lease noderepair-system/noderepair-autorepair-latch (the shipped leader-election
// Role must allow it). The process is SIGKILLed, the storm lifts while it is down, and a new
// process finds one broken node: it must stay held (the latch survived) until a person
// removes the annotation, then be repaired once.
//
// Row "rate limit survives SIGKILL": five nodes fail at once with maxStartsPerHour 2 (the
// storm guard itself is not tripped: maxUnhealthy 100%). Exactly two repairs start, counted
// from the provider's own record; the other three are held with NodeRepairHeld=RateLimit and
// a StormGuardHeld Event naming the rate limit. The two repaired nodes come back, their
// repairs end (history only), the controller is SIGKILLed, and a new process, with no memory
// of those starts but the nodes' persisted histories, holds the three again by the rate
// limit and starts nothing.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import {
  createKubeClient,
  EventResource,
  LeaseResource,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import {
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
import { until } from '../src/wait.js';
import { doubleActions, recordedRequests } from '../src/provider-record.js';
import { chaosDir, record } from './support/chaos-file.js';

const SCOPE = 'chaos.noderepair.dev/brakes';
const NS = 'noderepair-system';
const LATCH_LEASE = 'noderepair-autorepair-latch';
const LATCHED = 'noderepair.io/latched';
const NODES = ['brakes-0', 'brakes-1', 'brakes-2'];
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '2s' }],
  ladder: [{ action: 'SoftReboot', timeout: '10m', attempts: 1 }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  drain: { enabled: false },
  stormGuard: {
    maxUnhealthy: 1,
    minUnhealthyAllowed: 0,
    maxInFlight: 3,
    recheckInterval: '1s',
    cooldown: '1s',
    latch: { afterHeldFor: '3s' },
  },
};

/** What each row boots: its own control plane with the shipped RBAC, and fake kubelets. */
interface Row {
  cp: ControlPlane;
  client: KubeClient;
  core: CoreV1Api;
  /** A kubeconfig with the `noderepair` ServiceAccount's token (least privilege). */
  kubeconfig: string;
  policyPath: string;
}

async function bootRow(
  prefix: string,
  scope: string,
  nodes: readonly string[],
  policy: object,
  kubelets: Map<string, FakeKubelet>,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), `chaos-${prefix}-`));
  const cp = await startControlPlane({ startTimeoutMs: 120_000 });
  const rbac = YAML.parseAllDocuments(
    readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
  )
    .map((d) => d.toJS() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
  await applyObjects(cp.kubeConfig, rbac);
  const token = await serviceAccountToken(cp.kubeConfig, NS, 'noderepair');
  const kubeconfig = tokenKubeconfig(
    join(dir, 'kubeconfig'),
    cp.server,
    cp.caPem,
    token,
    'noderepair',
  );
  for (const name of nodes)
    kubelets.set(
      name,
      await startFakeKubelet(cp.kubeConfig, {
        name,
        labels: { [scope]: 'yes' },
        heartbeatSeconds: 2,
        providerID: `test:///${name}`,
      }),
    );
  const policyPath = join(dir, 'policy.yaml');
  writeFileSync(policyPath, YAML.stringify(policy));
  return {
    cp,
    client: createKubeClient(cp.kubeConfig),
    core: cp.kubeConfig.makeApiClient(CoreV1Api),
    kubeconfig,
    policyPath,
  };
}

async function stopRow(
  row: Row | undefined,
  procs: readonly ControllerProcess[],
  kubelets: Map<string, FakeKubelet>,
): Promise<void> {
  for (const p of procs) await p.stop().catch(() => undefined);
  for (const k of kubelets.values()) await k.stop().catch(() => undefined);
  await row?.cp.stop();
}

/** `noderepair run` as an operator starts it, with the FAKE recording provider. */
function runController(
  row: Row,
  name: string,
  scope: string,
  logFile: string,
  extra: string[] = [],
): ControllerProcess {
  return ControllerProcess.start({
    name,
    entry: noderepairCliMain,
    args: [
      'run',
      '--kubeconfig',
      row.kubeconfig,
      '--policy',
      row.policyPath,
      '--provider-module',
      fakeRecordingProviderModule,
      '--label-selector',
      scope,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      ...extra,
    ],
    // The latch Lease is in the leader-election namespace: $POD_NAMESPACE, as in deploy.yaml.
    env: { POD_NAME: name, POD_NAMESPACE: NS },
    logFile: join(chaosDir(), logFile),
  });
}

/** The reason of the node's NodeRepairHeld=True condition, if any. */
const heldReasonOf = async (core: CoreV1Api, name: string) =>
  (await core.readNode({ name })).status?.conditions?.find(
    (c) => c.type === 'NodeRepairHeld' && c.status === 'True',
  )?.reason;

describe('latch survives SIGKILL', () => {
  let client: KubeClient;
  let core: CoreV1Api;
  const procs: ControllerProcess[] = [];
  const kubelets = new Map<string, FakeKubelet>();

  let row: Row | undefined;
  function startController(i: number): ControllerProcess {
    return runController(row!, `noderepair-brakes-${i}`, SCOPE, 'brakes.log');
  }

  const latchValue = async () =>
    (
      await client
        .get<KubeObject>(LeaseResource, LATCH_LEASE, {
          namespace: NS,
        })
        .catch(() => undefined)
    )?.metadata?.annotations?.[LATCHED];

  const heldReason = (name: string) => heldReasonOf(core, name);

  beforeAll(async () => {
    row = await bootRow('brakes', SCOPE, NODES, POLICY, kubelets);
    ({ client, core } = row);
  });

  afterAll(() => stopRow(row, procs, kubelets));

  it('the latch set before a SIGKILL holds the restarted controller until a person removes it', async () => {
    procs.push(startController(0));
    await kubelets.get(NODES[0]!)!.setNotReady();
    await kubelets.get(NODES[1]!)!.setNotReady();
    const set = await until('the latch set on its Lease', latchValue, 60_000, 250);
    const first = procs[0]!;
    await first.kill();
    await kubelets.get(NODES[1]!)!.setReady();

    const second = startController(1);
    procs.push(second);
    // The storm is over: only the latch can hold node 0 now.
    await until(
      'node 0 held by the latch after the restart',
      async () => (await heldReason(NODES[0]!)) === 'Latched' || undefined,
      60_000,
      250,
    );
    await sleep(3000);
    const whileLatched = recordedRequests([...first.lines, ...second.lines]);

    // A person removes the annotation: node 0 is repaired at its next recheck.
    await client.patch(
      LeaseResource,
      LATCH_LEASE,
      { type: 'merge', body: { metadata: { annotations: { [LATCHED]: null } } } },
      { namespace: NS },
    );
    await until(
      'node 0 repaired after the reset',
      async () => recordedRequests(second.lines).some((r) => r.node === NODES[0]) || undefined,
      60_000,
      250,
    );
    const all = recordedRequests([...first.lines, ...second.lines]);
    const doubles = doubleActions(all);
    const crashes = (first.crashed ? 1 : 0) + (second.crashed ? 1 : 0);
    record({
      fault: 'latch (stormGuard.latch)',
      variant: 'latched by a 2-of-3 storm, SIGKILLed, storm over before the restart',
      injected: 1,
      survived:
        whileLatched.length === 0 && all.length === 1 && doubles.doubles === 0 && crashes === 0
          ? 1
          : 0,
      doubleReboots: doubles.doubles,
      crashes,
      fuzzInputs: 0,
      note: `requests while latched: ${whileLatched.length}; after the reset: ${all.map((r) => r.node).join(', ')}`,
    });
    expect(JSON.parse(set)).toMatchObject({ reason: expect.stringMatching(/afterHeldFor/) });
    expect(whileLatched).toEqual([]);
    expect(all.map((r) => r.node)).toEqual([NODES[0]]);
    expect(doubles.details).toEqual([]);
    expect(crashes).toBe(0);
  });
});

const RATE_SCOPE = 'chaos.noderepair.dev/rate';
const RATE_NODES = ['rate-0', 'rate-1', 'rate-2', 'rate-3', 'rate-4'];
const STATE = 'noderepair.io/repair-state';

const RATE_POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '2s' }],
  ladder: [{ action: 'SoftReboot', timeout: '10m', attempts: 1 }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  drain: { enabled: false },
  stormGuard: {
    maxUnhealthy: '100%',
    maxInFlight: 10,
    recheckInterval: '1s',
    cooldown: '1s',
    maxStartsPerHour: 2,
  },
};

describe('rate limit survives SIGKILL', () => {
  let client: KubeClient;
  let core: CoreV1Api;
  const procs: ControllerProcess[] = [];
  const kubelets = new Map<string, FakeKubelet>();

  let row: Row | undefined;
  function startController(i: number): ControllerProcess {
    // The 'decided' lines (node, reason) say what the restarted process judged.
    return runController(row!, `noderepair-rate-${i}`, RATE_SCOPE, 'rate.log', [
      '--log-level',
      'debug',
    ]);
  }

  const heldReason = (name: string) => heldReasonOf(core, name);

  const stateOf = async (name: string) => {
    const raw = (await client.get<KubeNode>(NodeResource, name)).metadata?.annotations?.[STATE];
    return raw ? (JSON.parse(raw) as { phase?: string; history?: unknown[] }) : undefined;
  };

  /** The reasons this process decided `node` with, from its debug 'decided' lines. */
  const decidedReasons = (proc: ControllerProcess, node: string): string[] =>
    proc.lines.flatMap((line) => {
      if (!line.includes('"decided"')) return [];
      try {
        const j = JSON.parse(line) as { node?: string; reason?: string; msg?: string };
        return j.node === node && j.msg === 'decided' && j.reason !== undefined ? [j.reason] : [];
      } catch {
        return [];
      }
    });

  beforeAll(async () => {
    row = await bootRow('rate', RATE_SCOPE, RATE_NODES, RATE_POLICY, kubelets);
    ({ client, core } = row);
  });

  afterAll(() => stopRow(row, procs, kubelets));

  it('two of five failing nodes are repaired; the rest stay held by the rate limit across a SIGKILL', async () => {
    const first = startController(0);
    procs.push(first);
    for (const name of RATE_NODES) await kubelets.get(name)!.setNotReady();

    // Two repairs start (the provider's record says which), the other three are held.
    const repaired = await until(
      'two repairs recorded by the provider',
      () => {
        const nodes = [...new Set(recordedRequests(first.lines).map((r) => r.node))];
        return nodes.length >= 2 ? nodes : undefined;
      },
      120_000,
      250,
    );
    const heldNodes = RATE_NODES.filter((n) => !repaired.includes(n));
    await until(
      'the three others held by the rate limit (NodeRepairHeld=RateLimit)',
      async () => {
        for (const n of heldNodes) if ((await heldReason(n)) !== 'RateLimit') return undefined;
        return true;
      },
      60_000,
      250,
    );
    // The repaired nodes come back: their repairs end, only their histories keep the starts.
    for (const n of repaired) await kubelets.get(n)!.setReady();
    await until(
      'the two repairs ended (Healthy, one history entry each)',
      async () => {
        for (const n of repaired) {
          const s = await stateOf(n);
          if (s?.phase !== 'Healthy' || (s.history?.length ?? 0) < 1) return undefined;
        }
        return true;
      },
      120_000,
      250,
    );
    const beforeKill = recordedRequests(first.lines);

    await first.kill();
    const second = startController(1);
    procs.push(second);
    // The new process (no memory of the starts) judges each held node by the rate limit; one
    // that starts a repair instead ends the wait at once (and fails the row below).
    await until(
      'the restarted controller holds the three by the rate limit, or starts a repair',
      () =>
        recordedRequests(second.lines).length > 0 ||
        heldNodes.every((n) => decidedReasons(second, n).some((r) => /rate limit/.test(r))),
      120_000,
      250,
    );
    await sleep(3000);

    const events = (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items;
    const heldEvent = (n: string) =>
      events.some(
        (e) =>
          e.reason === 'StormGuardHeld' &&
          e.regarding?.name === n &&
          /rate limit: \d+ repairs started in the last hour \(maxStartsPerHour 2\)/.test(
            e.note ?? '',
          ),
      );
    const withEvent = heldNodes.filter(heldEvent);
    const stillHeld: string[] = [];
    for (const n of heldNodes) if ((await heldReason(n)) === 'RateLimit') stillHeld.push(n);
    const all = recordedRequests([...first.lines, ...second.lines]);
    const afterRestart = recordedRequests(second.lines);
    const startedNodes = [...new Set(all.map((r) => r.node))].sort();
    const doubles = doubleActions(all);
    const crashes = (first.crashed ? 1 : 0) + (second.crashed ? 1 : 0);
    const ok =
      startedNodes.length === 2 &&
      afterRestart.length === 0 &&
      withEvent.length === heldNodes.length &&
      stillHeld.length === heldNodes.length &&
      doubles.doubles === 0 &&
      crashes === 0;
    record({
      fault: 'rate limit (stormGuard.maxStartsPerHour)',
      variant: '5 of 5 nodes fail, maxStartsPerHour 2, SIGKILL after both repairs ended',
      injected: 1,
      survived: ok ? 1 : 0,
      doubleReboots: doubles.doubles,
      crashes,
      fuzzInputs: 0,
      note: `started: ${startedNodes.join(', ')} (provider requests ${all.length}, ${beforeKill.length} before the kill, ${afterRestart.length} after the restart); held by RateLimit: ${stillHeld.length}/${heldNodes.length}, with a StormGuardHeld rate-limit Event: ${withEvent.length}/${heldNodes.length}`,
    });
    expect(startedNodes).toEqual([...repaired].sort());
    expect(startedNodes).toHaveLength(2);
    expect(afterRestart).toEqual([]);
    expect(withEvent).toEqual(heldNodes);
    expect(stillHeld).toEqual(heldNodes);
    expect(doubles.details).toEqual([]);
    expect(crashes).toBe(0);
  });
});
