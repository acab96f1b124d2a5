// Issue 27's chaos row: two actors disrupting the same zone at once never exceed the storm
// guard together. `noderepair run` as a real process (ServiceAccount token bound to
// examples/standalone/rbac.yaml, the FAKE recording provider: it accepts every action and
// changes nothing, so a repair stays in flight until the test brings its node back) repairs
// failing nodes of one zone while a second actor disrupts nodes of the same zone: kured
// (its lock annotation on a real kured DaemonSet, the node cordoned and rebooting) and a
// medik8s NodeMaintenance (a real object of its CRD, the node cordoned and down).
//
// The storm guard counts a node another actor disrupts as in flight, so with maxInFlight 3
// and two nodes taken by the other actor only one of our three failing nodes may start; the
// others start as the other actor's slots free up. A sampler reads every Node's state
// annotation and the other actor's marks all along and checks both invariants: ours in
// flight plus theirs never above maxInFlight, and never a node of theirs repaired by us.
// The test also waits for our repairs to start as slots free, so it fails both ways: a
// guard that ignored the other actor exceeds the limit, one that held everything never
// starts the second and third repair.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseKuredLock } from '@noderepair/core/health';
import {
  createKubeClient,
  customResource,
  EventResource,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
  type KubeObject,
} from '@noderepair/core/kube';
import {
  freePort,
  installCRDs,
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
import { scanForSecrets } from '../src/secret-scan.js';
import { sleep, until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const ZONE = 'topology.kubernetes.io/zone';
const SCOPE = 'chaos.noderepair.dev/actors';
const STATE = 'noderepair.io/repair-state';
const KURED_LOCK = 'weave.works/kured-node-lock';
const MAX_IN_FLIGHT = 3;
/** One zone of eight nodes; every one of them in zone-a. */
const NODES = Array.from({ length: 8 }, (_, i) => `actors-${i}`);
const [MAINTAINED, KURED_FIRST, OURS_A, OURS_B, OURS_C, KURED_NEXT] = NODES as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const OURS = [OURS_A, OURS_B, OURS_C];
const THEIRS = [MAINTAINED, KURED_FIRST, KURED_NEXT];

const POLICY = {
  unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '5s' }],
  ladder: [{ action: 'SoftReboot', timeout: '10m' }],
  minHealthyPeriod: '1s',
  retryBackoff: '1s',
  drain: { enabled: false },
  stormGuard: {
    // At most 5 of the 8 are down at once (2 theirs, 3 ours): no storm, only maxInFlight brakes.
    maxUnhealthy: '75%',
    maxInFlight: MAX_IN_FLIGHT,
    failureDomainLabel: ZONE,
    maxUnhealthyPerDomain: '75%',
    recheckInterval: '1s',
  },
  coordination: { kured: { daemonSet: 'kube-system/kured' } },
};

/** The NodeMaintenance CRD the core coordination tests install (medik8s' v1beta1 API). */
const NM_CRD = join(
  repoRoot,
  'packages',
  'core',
  'test',
  'crds',
  'nodemaintenance.medik8s.io.yaml',
);

const DaemonSetResource = customResource({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  namespaced: true,
});
const NodeMaintenanceResource = customResource({
  group: 'nodemaintenance.medik8s.io',
  version: 'v1beta1',
  kind: 'NodeMaintenance',
  namespaced: false,
});

interface Sample {
  /** Our repairs in flight (state annotation Remediating or Verifying). */
  ours: string[];
  /** Nodes the other actor disrupts now (a kured lock or a NodeMaintenance names them). */
  theirs: string[];
}

/** kured's lock as kured writes it (daemonsetlock: nodeID, metadata, created, TTL in ns). */
function kuredLock(node: string): string {
  return JSON.stringify({
    nodeID: node,
    metadata: { unschedulable: false },
    created: new Date().toISOString(),
    TTL: 0,
  });
}

describe('two actors disrupting one zone against the standalone auto-repair controller', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let proc: ControllerProcess;
  const kubelets = new Map<string, FakeKubelet>();
  let dir: string;
  let token: string;
  let kubeconfig: string;
  let policyPath: string;
  const samples: Sample[] = [];
  let sampling: NodeJS.Timeout | undefined;

  const kubelet = (n: string) => kubelets.get(n)!;
  const phaseOf = (n: KubeNode) => {
    const raw = n.metadata?.annotations?.[STATE];
    return raw ? ((JSON.parse(raw) as { phase?: string }).phase ?? 'Healthy') : 'Healthy';
  };

  /**
   * Ours first, then theirs: a mark the other actor removes between the two reads (and the
   * repair the controller starts on the freed slot) then reads as fewer, never as more; the
   * other actor never adds a disruption while ours fill the slots (see the steps below).
   */
  async function sampleNow(): Promise<Sample> {
    const nodes = (await client.list<KubeNode>(NodeResource, { labelSelector: SCOPE })).items;
    const ours = nodes
      .filter((n) => ['Remediating', 'Verifying'].includes(phaseOf(n)))
      .map((n) => n.metadata?.name ?? '');
    const ds = await client.get<KubeObject>(DaemonSetResource, 'kured', {
      namespace: 'kube-system',
    });
    const lock = ds.metadata?.annotations?.[KURED_LOCK];
    const locked = lock ? parseKuredLock(lock) : undefined;
    const nms = (
      await client.list<KubeObject & { spec?: { nodeName?: string } }>(NodeMaintenanceResource)
    ).items;
    const theirs = new Set([
      ...(locked?._tag === 'Right' ? locked.right.map((l) => l.nodeID) : []),
      ...nms.map((m) => m.spec?.nodeName ?? ''),
    ]);
    return { ours, theirs: [...theirs].filter((n) => NODES.includes(n)) };
  }

  async function events(reason: string): Promise<KubeEvent[]> {
    return (await client.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
      (e) => e.reason === reason && NODES.includes(e.regarding?.name ?? ''),
    );
  }
  const nodesOf = (es: KubeEvent[]) => [...new Set(es.map((e) => e.regarding?.name ?? ''))].sort();
  const started = async () => nodesOf(await events('RepairStarted'));
  async function heldByActor(node: string, actor: string): Promise<boolean> {
    return (await events('HeldByOtherActor')).some(
      (e) => e.regarding?.name === node && (e.note ?? '').includes(actor),
    );
  }

  async function cordon(node: string, unschedulable: boolean): Promise<void> {
    await client.patch(NodeResource, node, {
      type: 'merge',
      body: { spec: { unschedulable: unschedulable ? true : null } },
    });
  }

  async function setKuredLock(value: string | null): Promise<void> {
    await client.patch(
      DaemonSetResource,
      'kured',
      {
        type: 'merge',
        body: { metadata: { annotations: { [KURED_LOCK]: value } } },
      },
      { namespace: 'kube-system' },
    );
  }

  /** `noderepair status --json` as an operator would run it, with the controller's token. */
  function statusJson(): { nodes: { name: string; hold?: Record<string, unknown> }[] } {
    const r = spawnSync(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        noderepairCliMain,
        'status',
        '--json',
        '--kubeconfig',
        kubeconfig,
        '--policy',
        policyPath,
        '--label-selector',
        SCOPE,
      ],
      { cwd: dirname(noderepairCliMain), encoding: 'utf8', timeout: 120_000 },
    );
    if (r.status !== 0) throw new Error(`noderepair status exited ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout) as { nodes: { name: string; hold?: Record<string, unknown> }[] };
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-actors-'));
    cp = await startControlPlane({ startTimeoutMs: 120_000 });
    client = createKubeClient(cp.kubeConfig);
    // The other actor's objects, as they exist where it is installed: the NodeMaintenance CRD
    // and kured's DaemonSet (whose annotation is kured's lock).
    await installCRDs(cp.kubeConfig, [NM_CRD]);
    await client.create(
      DaemonSetResource,
      {
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'kured' },
        spec: {
          selector: { matchLabels: { app: 'kured' } },
          template: {
            metadata: { labels: { app: 'kured' } },
            spec: {
              // No node matches: no daemon pod is wanted (envtest runs no scheduler anyway).
              nodeSelector: { 'test.noderepair.io/none': 'none' },
              containers: [{ name: 'kured', image: 'ghcr.io/kubereboot/kured:1.17.1' }],
            },
          },
        },
      } as KubeObject,
      { namespace: 'kube-system' },
    );
    // The shipped least-privilege RBAC of the standalone controller, verbatim.
    const rbac = YAML.parseAllDocuments(
      readFileSync(join(repoRoot, 'examples', 'standalone', 'rbac.yaml'), 'utf8'),
    )
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null);
    await applyObjects(cp.kubeConfig, rbac);
    token = await serviceAccountToken(cp.kubeConfig, 'noderepair-system', 'noderepair');
    kubeconfig = tokenKubeconfig(join(dir, 'kubeconfig'), cp.server, cp.caPem, token, 'noderepair');
    for (const name of NODES)
      kubelets.set(
        name,
        await startFakeKubelet(cp.kubeConfig, {
          name,
          labels: { [SCOPE]: 'yes', [ZONE]: 'zone-a' },
          heartbeatSeconds: 2,
        }),
      );
    policyPath = join(dir, 'policy.yaml');
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
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        `127.0.0.1:${probe}`,
      ],
      env: { POD_NAME: 'noderepair-0' },
      logFile: join(chaosDir(), 'actors.log'),
    });
    proc.probePort = probe;
    await until('the controller healthy', async () => (await proc.healthy()) || undefined);
    sampling = setInterval(() => {
      sampleNow().then(
        (s) => samples.push(s),
        () => undefined,
      );
    }, 250);
  });

  afterAll(async () => {
    if (sampling) clearInterval(sampling);
    await proc?.stop();
    for (const k of kubelets.values()) await k.stop().catch(() => undefined);
    await cp?.stop();
  });

  it('kured and a NodeMaintenance in the zone: ours plus theirs never above maxInFlight, theirs never repaired, ours start as slots free', async () => {
    const startedAt: Record<string, number> = {};
    const expectStarted = async (n: number, what: string) => {
      // A safety net, not a speed claim: with a 1 s recheck a freed slot is taken within
      // seconds, and a guard that never frees it should fail without waiting 5 minutes.
      const s = await until(
        `${n} of our repairs started (${what})`,
        async () => {
          const now = await started();
          return now.length >= n ? now : undefined;
        },
        120_000,
      );
      startedAt[what] = s.length;
      return s;
    };
    /** Several recheck intervals in which nothing more may start. */
    const holdsAt = async (n: number, what: string) => {
      await sleep(5_000);
      const s = await started();
      startedAt[`${what}, after 5 s`] = s.length;
      expect(s, what).toHaveLength(n);
    };

    // 1. The other actor takes two nodes of the zone: a NodeMaintenance on one (cordoned and
    //    down for a firmware update) and kured's reboot lock on another (cordoned, rebooting).
    await client.create(NodeMaintenanceResource, {
      apiVersion: 'nodemaintenance.medik8s.io/v1beta1',
      kind: 'NodeMaintenance',
      metadata: { name: `nm-${MAINTAINED}` },
      spec: { nodeName: MAINTAINED, reason: 'firmware update' },
    } as KubeObject);
    await cordon(MAINTAINED, true);
    await kubelet(MAINTAINED).setNotReady('firmware update in progress');
    await setKuredLock(kuredLock(KURED_FIRST));
    await cordon(KURED_FIRST, true);
    await kubelet(KURED_FIRST).setNotReady('kured: rebooting');
    await until('both held with the other actor as the reason', async () =>
      (await heldByActor(MAINTAINED, 'NodeMaintenance')) &&
      (await heldByActor(KURED_FIRST, 'Kured'))
        ? true
        : undefined,
    );

    // 2. Three of our nodes fail at once: 2 slots are theirs, so exactly one of ours starts.
    await Promise.all(OURS.map((n) => kubelet(n).setNotReady()));
    const [first] = await expectStarted(1, 'theirs 2: 1 slot');
    await holdsAt(1, 'theirs 2: 1 slot');
    // What an operator sees: the two of ours queued behind the other actor's disruptions,
    // theirs held with the actor as the reason.
    const status = statusJson();
    const hold = (n: string) => status.nodes.find((s) => s.name === n)?.hold;
    expect(hold(MAINTAINED)).toMatchObject({ kind: 'actor', actor: 'NodeMaintenance' });
    expect(hold(KURED_FIRST)).toMatchObject({ kind: 'actor', actor: 'Kured' });
    const queued = OURS.filter((n) => n !== first);
    for (const n of queued)
      expect(hold(n)).toMatchObject({ kind: 'in-flight', maxInFlight: MAX_IN_FLIGHT, byOthers: 2 });

    // 3. kured's node is back (Ready, uncordoned) and kured moves its lock to the next node in
    //    one update, as kured does: it releases a lock only after its node rebooted. Still two
    //    of theirs, so still one of ours. (Moving the lock before the node is back would leave
    //    a NotReady node with no mark: noderepair would rightly repair it.)
    await kubelet(KURED_FIRST).setReady();
    await cordon(KURED_FIRST, false);
    await setKuredLock(kuredLock(KURED_NEXT));
    await cordon(KURED_NEXT, true);
    await kubelet(KURED_NEXT).setNotReady('kured: rebooting');
    await until('the next kured node held with kured as the reason', async () =>
      (await heldByActor(KURED_NEXT, 'Kured')) ? true : undefined,
    );
    await holdsAt(1, 'kured moved to the next node');

    // 4. kured is done: its slot frees and a second repair of ours starts.
    await kubelet(KURED_NEXT).setReady();
    await cordon(KURED_NEXT, false);
    await setKuredLock(null);
    await expectStarted(2, 'theirs 1: 2 slots');
    await holdsAt(2, 'theirs 1: 2 slots');

    // 5. Our first repair ends (its node back): the third starts, beside the maintenance.
    await kubelet(first!).setReady();
    await expectStarted(3, 'ours 1 done');

    // 6. The maintenance ends (its node back first, then the NodeMaintenance deleted, which
    //    is when NMO uncordons); our nodes come back.
    await kubelet(MAINTAINED).setReady();
    await client.delete(NodeMaintenanceResource, `nm-${MAINTAINED}`);
    await cordon(MAINTAINED, false);
    await Promise.all(OURS.map((n) => kubelet(n).setReady()));
    await until('every node healthy, no repair in flight', async () => {
      const nodes = (await client.list<KubeNode>(NodeResource, { labelSelector: SCOPE })).items;
      return nodes.every((n) => phaseOf(n) === 'Healthy' && n.spec?.unschedulable !== true)
        ? true
        : undefined;
    });
    if (sampling) clearInterval(sampling);
    sampling = undefined;

    const finalStarted = await started();
    const together = samples.map((s) => new Set([...s.ours, ...s.theirs]).size);
    const maxTogether = Math.max(0, ...together);
    const collisions = samples.flatMap((s) => s.ours.filter((n) => s.theirs.includes(n)));
    const requests = proc.lines.filter((l) =>
      l.includes('fake-recording provider: request recorded'),
    );
    const perNode = (n: string) => requests.filter((l) => l.includes(`"node":"${n}"`)).length;
    const doubleReboots = OURS.filter((n) => perNode(n) > 1).length;
    const ok =
      maxTogether <= MAX_IN_FLIGHT &&
      collisions.length === 0 &&
      finalStarted.join() === [...OURS].sort().join() &&
      doubleReboots === 0 &&
      !proc.crashed;
    record({
      fault: 'two actors in one zone (noderepair + kured, NodeMaintenance)',
      variant: `kured reboots 2 nodes, a NodeMaintenance 1; noderepair repairs 3 (maxInFlight ${MAX_IN_FLIGHT})`,
      injected: OURS.length + THEIRS.length,
      survived: ok ? OURS.length + THEIRS.length : 0,
      doubleReboots,
      crashes: proc.crashed ? 1 : 0,
      fuzzInputs: 0,
      note: `ours + theirs in flight at most ${maxTogether} of ${MAX_IN_FLIGHT} (${samples.length} samples); theirs repaired by us: ${collisions.length}; ours started ${Object.values(startedAt).join(' -> ')} as slots freed`,
    });
    expect(samples.length).toBeGreaterThan(20);
    expect(maxTogether).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    // Full for a while: the sampler saw ours and theirs fill every slot (so the bound was tested).
    expect(together).toContain(MAX_IN_FLIGHT);
    expect(collisions).toEqual([]);
    expect(finalStarted).toEqual([...OURS].sort());
    expect(OURS.map(perNode)).toEqual([1, 1, 1]);
    expect(THEIRS.map(perNode)).toEqual([0, 0, 0]);
    expect(proc.running).toBe(true);
  });

  it('no credential in its log lines or events', async () => {
    const events = (await client.list<KubeEvent>(EventResource)).items;
    const r = scanForSecrets(proc.lines, events, [token, cp.adminToken]);
    record({
      fault: 'secret scan (logs + events)',
      variant: 'two actors in one zone',
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
