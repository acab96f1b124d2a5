// A real node in the loop (issue 26): the kubelet built at the control plane's version and
// Debian's containerd in a qemu VM, joined to a real kube-apiserver with kube-controller-manager's
// node lifecycle controller, and overlayfs-gen's health monitors installed from its cloud-init
// output. What the kubelet and the controller manager write is read back from the API and fed
// to core's classifier: the messages the fake kubelet and the docs use are checked against the
// real ones here. From scenario 4 on, `noderepair run` (the standalone controller, as a process)
// watches the node and repairs it through the test hypervisor; scenario 5 has node-problem-detector
// (built from its module, running in the guest) report a kernel deadlock that it repairs.
import { AppsV1Api, CoordinationV1Api, CoreV1Api, EventsV1Api, type EventsV1Event, type V1Node } from '@kubernetes/client-node';
import { classifyNode, conditionMatches, decideRepair, readStateAnnotation, resolveRepairPolicy, TaintOutOfService, type HealthObservation } from '@noderepair/core/health';
import type { ActionRequest, MachineProvider } from '@noderepair/core/provider';
import { readyTexts } from '@noderepair/core/testing';
import { KUBERNETES_VERSION, KubeletNotReadyMessages, startControlPlane, waitFor, type ControlPlane } from '@noderepair/envtest';
import { cloudInit, decodeConfig, generate, DEFAULT_KUBELET_HEALTHZ } from '@noderepair/overlayfs-gen';
import { applyCloudConfig } from '@noderepair/vm';
import { either } from 'fp-ts';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureNodeImage, HOST_FROM_GUEST, joinTargetOf, KubeNode, NPD_UNIT, NPD_VERSION, PAUSE_IMAGE, POD_SUBNET } from '../src/node/index.js';
import { TestHypervisor, testHypervisorProvider } from '../src/test-hypervisor/index.js';
import { NoderepairRun, TEST_HYPERVISOR_PROVIDER } from './support/noderepair-run.js';

const NAME = 'vm-node-1';
/** The controller manager's grace before it marks a silent node Unknown (40 s by default). */
const NODE_MONITOR_GRACE_S = 20;
/** The monitors' boot grace: the kubelet starts only once the test has joined it. */
const BOOT_GRACE_S = 90;
/** How long Ready may be False or Unknown before `noderepair run` repairs (10m in the example policy). */
const UNHEALTHY_S = 45;
/** The wrong change of scenario 4: a kubelet drop-in with a mistyped flag, in the overlaid /etc. */
const BROKEN_DROPIN = '/etc/systemd/system/kubelet.service.d/90-max-pods.conf';
const WORKLOAD = 'workload';
/** How long node-problem-detector's KernelDeadlock=True may last before `noderepair run` repairs (5m in the example policy). */
const DEADLOCK_S = 20;
/**
 * Scenario 5's kernel line: the hung-task report that node-problem-detector's kernel monitor
 * (its config/kernel-monitor.json) maps to the permanent KernelDeadlock=True, reason DockerHung
 * (pattern `task docker:\w+ blocked for more than \w+ seconds\.`). Its generic `task ...
 * blocked` rule is only a temporary TaskHung Event. The line of examples/policies' trace.
 */
const HUNG_TASK_LINE = 'task docker:1231 blocked for more than 120 seconds.';
// The standalone controller's policy: the example policy's shape with the test's short timeouts,
// and one step, a HardReboot, which fences (a soft reboot never does). node-problem-detector's
// KernelDeadlock (scenario 5) has its own rule and ladder, as in
// examples/policies/node-problem-detector.yaml.
const POLICY = `unhealthyConditions:
  - { type: Ready, status: "False", timeout: ${UNHEALTHY_S}s }
  - { type: Ready, status: Unknown, timeout: ${UNHEALTHY_S}s }
  - type: KernelDeadlock
    status: "True"
    reason: DockerHung
    timeout: ${DEADLOCK_S}s
    ladder:
      - { action: HardReboot, timeout: 10m, attempts: 1 }
minHealthyPeriod: 10s
ladder:
  - { action: HardReboot, timeout: 10m, attempts: 1 }
drain:
  enabled: true
  timeout: 3m
  outOfServiceAfter: 15s
`;

// The generated monitors, tuned so each scenario shows the node's own signal first: a stopped
// containerd is reported by the kubelet after ~30-40 s, so the runtime monitor waits ~60 s of
// failed checks (its default 3 x 10 s could restart it before the kubelet says anything).
const shared = {
  bootGraceSeconds: BOOT_GRACE_S,
  restartSec: 2,
  backoff: { initialSeconds: 10, maxSeconds: 60 },
  restartBudget: { maxRestarts: 5, windowSeconds: 3600 },
};
const overlay = decodeConfig({
  tmpfsSize: '256M',
  healthMonitors: [
    {
      ...shared,
      name: 'kubelet',
      unit: 'kubelet.service',
      check: { type: 'http', url: DEFAULT_KUBELET_HEALTHZ },
      intervalSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 3,
      killGraceSeconds: 5,
    },
    {
      ...shared,
      name: 'container-runtime',
      unit: 'containerd.service',
      check: { type: 'crictl', endpoint: 'unix:///run/containerd/containerd.sock' },
      intervalSeconds: 10,
      timeoutSeconds: 20,
      failureThreshold: 6,
      killGraceSeconds: 10,
    },
  ],
});
if (either.isLeft(overlay)) throw new Error(JSON.stringify(overlay.left));
const userData = cloudInit(generate(overlay.right));
if (either.isLeft(userData)) throw new Error(userData.left);

let cp: ControlPlane;
let node: KubeNode;
let core: CoreV1Api;
let bootId: string;
/** The node's power: the test hypervisor on the VM's QMP socket, through core's provider port. */
const hvDir = mkdtempSync(join(tmpdir(), 'vm-node-hv-'));
let hv: TestHypervisor;
let provider: MachineProvider;
/** `noderepair run`, from scenario 4 on (scenarios 1 and 2 are the node's own repairs). */
let controller: NoderepairRun | undefined;
const t0 = Date.now();
/** Seconds since the test file started, per event: printed as one JSON line at the end. */
const timeline: Record<string, number> = {};
const mark = (what: string) => (timeline[what] = Math.round((Date.now() - t0) / 100) / 10);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function readNode(): Promise<V1Node> {
  return core.readNode({ name: NAME });
}
function ready(n: V1Node) {
  return n.status?.conditions?.find((c) => c.type === 'Ready');
}
/** Polls the Node until `pred` holds; the error says what the host and the guest saw. */
async function waitForNode(what: string, pred: (n: V1Node) => boolean, limitS: number): Promise<V1Node> {
  const deadline = Date.now() + limitS * 1000;
  let last: V1Node | undefined;
  let lastError = '';
  for (;;) {
    try {
      last = await readNode();
      lastError = '';
      if (pred(last)) return last;
    } catch (e) {
      // Not registered yet, or the API server did not answer: the error tells which.
      lastError = e instanceof Error ? e.message.slice(0, 300) : String(e);
    }
    if (Date.now() > deadline) {
      const read = last === undefined ? 'never read' : `Ready: ${JSON.stringify(ready(last))}`;
      throw new Error(
        `${what}: not within ${limitS}s; ${read}${lastError ? `; last read failed: ${lastError}` : ''}\n${await diagnostics()}`,
      );
    }
    await sleep(2000);
  }
}
/**
 * What a failed wait needs to be understood from CI's log alone: the control plane's processes,
 * the guest's units, whether the guest reaches the API server, and each unit's journal. (One
 * journalctl per unit: `-u` and `-t` in one call AND their matches, which printed "No entries".)
 */
async function diagnostics(): Promise<string> {
  const port = new URL(cp.server).port;
  const guest = await node.vm
    .exec(
      [
        'echo "guest time: $(date -u +%FT%TZ), uptime $(cut -d" " -f1 /proc/uptime)s"',
        'systemctl show -p Id -p ActiveState -p SubState -p NRestarts -p ExecMainStatus kubelet containerd noderepair-health-kubelet | paste -sd" "',
        `if timeout 5 bash -c 'exec 3<>/dev/tcp/${HOST_FROM_GUEST}/${port}'; then echo "API server ${HOST_FROM_GUEST}:${port} reachable from the guest"; else echo "API server ${HOST_FROM_GUEST}:${port} NOT reachable from the guest"; fi`,
        'ls -l /etc/kubernetes',
        ...['kubelet', 'containerd'].map((u) => `echo "--- ${u}"; journalctl -b --no-pager -u ${u} | tail -25 | cut -c1-300`),
        ...['kubelet', 'container-runtime'].map(
          (m) => `echo "--- monitor ${m}"; journalctl -b --no-pager -t noderepair-health-${m} | tail -10 | cut -c1-300`,
        ),
      ].join('; '),
      60_000,
    )
    .then(
      (r) => r.out,
      (e: unknown) => `the guest agent did not answer: ${e instanceof Error ? e.message : String(e)}`,
    );
  const apiserverLog = (() => {
    try {
      return readFileSync(cp.logFiles['kube-apiserver'] as string, 'utf8').split('\n').slice(-15).join('\n');
    } catch (e) {
      return `(no log: ${e instanceof Error ? e.message : String(e)})`;
    }
  })();
  return [
    `host: control plane processes running: ${cp.pids.length} (etcd, kube-apiserver, kube-controller-manager)`,
    guest,
    '--- kube-apiserver log (last lines)',
    apiserverLog,
  ].join('\n');
}
const isReady = (n: V1Node) => ready(n)?.status === 'True';

/** core's causes table (packages/core/docs/health.md): the row of `cause`, to check it against the real text. */
const causesDoc = readFileSync(new URL('../../core/docs/health.md', import.meta.url), 'utf8');
function docRow(cause: string): string {
  const row = causesDoc.split('\n').find((l) => l.startsWith(`| \`${cause}\``));
  if (row === undefined) throw new Error(`packages/core/docs/health.md has no row for ${cause}`);
  return row;
}
/**
 * node-problem-detector's KernelDeadlock texts as examples/policies/kernel-deadlock.jsonl (the
 * trace the example policy is replayed on) has them, by status: checked against the real ones.
 */
const npdTrace = readFileSync(new URL('../../../examples/policies/kernel-deadlock.jsonl', import.meta.url), 'utf8');
function traceDeadlock(status: 'True' | 'False') {
  for (const line of npdTrace.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const conditions = (JSON.parse(line) as { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> }).conditions ?? [];
    const c = conditions.find((x) => x.type === 'KernelDeadlock' && x.status === status);
    if (c !== undefined) return { status: c.status, reason: c.reason, message: c.message };
  }
  throw new Error(`examples/policies/kernel-deadlock.jsonl has no KernelDeadlock=${status}`);
}
const examplePolicy = readFileSync(new URL('../../../examples/policies/node-problem-detector.yaml', import.meta.url), 'utf8');
function deadlock(n: V1Node) {
  return n.status?.conditions?.find((c) => c.type === 'KernelDeadlock');
}
const deadlockTexts = (n: V1Node) => ({ status: deadlock(n)?.status, reason: deadlock(n)?.reason, message: deadlock(n)?.message });
/** The Ready condition's status, reason and message: what core's readyTexts fixtures hold. */
const texts = (n: V1Node) => ({ status: ready(n)?.status, reason: ready(n)?.reason, message: ready(n)?.message });
/** Starts `noderepair run` with the test's policy (scenario 4 does; a narrowed run may skip it). */
function startController(): NoderepairRun {
  const policyPath = join(hvDir, 'policy.yaml');
  writeFileSync(policyPath, POLICY);
  return new NoderepairRun([
    '--kubeconfig', cp.kubeconfigPath,
    '--policy', policyPath,
    '--provider-module', TEST_HYPERVISOR_PROVIDER,
    '--provider-opt', `control=${hv.controlSocket}`,
    '--metrics-bind-address', '0',
    '--health-probe-bind-address', '0',
  ]);
}
function observation(n: V1Node): HealthObservation {
  return { nodeName: NAME, node: n as HealthObservation['node'] };
}
async function uptimeS(): Promise<number> {
  return Number((await node.vm.ok('cut -d. -f1 /proc/uptime')).trim());
}
/** The Events `noderepair run` wrote on the Node, oldest first. */
async function repairEvents(): Promise<EventsV1Event[]> {
  const events = cp.kubeConfig.makeApiClient(EventsV1Api);
  const all = await events.listEventForAllNamespaces();
  return all.items
    .filter((e) => e.regarding?.name === NAME && e.reportingController === 'noderepair.io/autorepair')
    .sort((a, b) => eventTime(a) - eventTime(b));
}
const eventTime = (e: EventsV1Event) => new Date(e.eventTime ?? e.metadata?.creationTimestamp ?? 0).getTime();
const hasOutOfService = (n: V1Node) => (n.spec?.taints ?? []).some((t) => t.key === TaintOutOfService);
async function mainPid(unit: string): Promise<number> {
  return Number((await node.vm.ok(`systemctl show -p MainPID --value ${unit}`)).trim());
}

beforeAll(async () => {
  cp = await startControlPlane({
    controllerManager: {
      // The pod GC frees the pods of a node with the out-of-service taint (after the fence).
      controllers: ['node-lifecycle-controller', 'pod-garbage-collector-controller'],
      nodeMonitorGracePeriodSeconds: NODE_MONITOR_GRACE_S,
      nodeMonitorPeriodSeconds: 2,
    },
    nodeIdentities: [NAME],
  });
  core = cp.kubeConfig.makeApiClient(CoreV1Api);
  const image = await ensureNodeImage({ progress: (l) => process.stdout.write(`${l}\n`) });
  mark('imageReady');
  const qmp = join(hvDir, `${NAME}.qmp`);
  node = new KubeNode({ name: NAME, image, qemuArgs: ['-qmp', `unix:${qmp},server=on,wait=off`] });
  bootId = await node.boot();
  mark('booted');
  hv = new TestHypervisor(hvDir);
  await hv.addMachine(NAME, qmp);
  await hv.serve();
  provider = testHypervisorProvider(hv.controlSocket);
  // What the node's cloud-init runs at first boot (overlayfs-gen's output): the monitors start.
  await applyCloudConfig(node.vm, userData.right);
  await node.join(joinTargetOf(cp, NAME));
  await waitForNode('the joined node Ready', isReady, 600);
  mark('nodeReady');
}, 40 * 60_000);

afterAll(async () => {
  await controller?.stop();
  await hv?.close();
  await node?.stop();
  rmSync(hvDir, { recursive: true, force: true });
  await cp?.stop();
  process.stdout.write(`${JSON.stringify({ benchmark: 'vm-node/real-node', ...timeline })}\n`);
});

describe('a real kubelet and containerd in a VM, joined to the test control plane', () => {
  it('registers its Node with its providerID, renews its Lease and runs a pod on the pod network', async () => {
    const n = await readNode();
    expect(texts(n)).toEqual(readyTexts.ready);
    expect(n.spec?.providerID).toBe(`qemu-test:///${NAME}`);
    expect(n.status?.nodeInfo?.kubeletVersion).toBe(KUBERNETES_VERSION);
    expect(n.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/1\.6\./);
    expect(n.status?.nodeInfo?.bootID).toBe(bootId);
    // The kubelet's lease controller creates the Lease on its own schedule, maybe after Ready.
    const leases = cp.kubeConfig.makeApiClient(CoordinationV1Api);
    const lease = await waitFor('the kubelet\'s Lease', () => leases.readNamespacedLease({ name: NAME, namespace: 'kube-node-lease' }), 120_000, 2000);
    expect(lease.spec?.holderIdentity).toBe(NAME);
    const renewed = await waitFor(
      'a renewal of the Lease',
      async () => {
        const l = await leases.readNamespacedLease({ name: NAME, namespace: 'kube-node-lease' });
        return l.metadata?.resourceVersion !== lease.metadata?.resourceVersion ? l : undefined;
      },
      120_000,
      2000,
    );
    expect(new Date(renewed.spec?.renewTime ?? 0).getTime()).toBeGreaterThan(new Date(lease.spec?.renewTime ?? 0).getTime());
    // A static pod from the locally built pause image (no registry is reachable): the runtime,
    // the sandbox image and the CNI bridge all work, and the kubelet mirrors it to the API.
    await node.vm.ok(
      `mkdir -p /etc/kubernetes/manifests && printf '%s\\n' 'apiVersion: v1' 'kind: Pod' 'metadata: { name: probe, namespace: default }' 'spec:' '  containers:' '  - { name: pause, image: registry.k8s.io/pause:3.10.1, imagePullPolicy: Never }' > /etc/kubernetes/manifests/probe.yaml`,
    );
    const pod = await waitFor(
      'the static pod Running',
      async () => {
        const p = await core.readNamespacedPod({ name: `probe-${NAME}`, namespace: 'default' });
        return p.status?.phase === 'Running' ? p : undefined;
      },
      300_000,
      2000,
    );
    expect(pod.spec?.nodeName).toBe(NAME);
    // An address from the node's bridge network (POD_SUBNET, a /16), so the CNI plugins ran.
    expect(pod.status?.podIP?.split('.').slice(0, 2)).toEqual(POD_SUBNET.split('.').slice(0, 2));
    mark('podRunning');
  });

  it('containerd stopped: the kubelet says "container runtime is down", core classifies it as the runtime, the runtime monitor restarts containerd, no reboot', async () => {
    // The monitors check only after their boot grace.
    await node.vm.ok(`while [ "$(cut -d. -f1 /proc/uptime)" -lt ${BOOT_GRACE_S + 5} ]; do sleep 1; done`, 300_000);
    await node.vm.ok('systemctl stop containerd.service');
    mark('containerdStopped');
    const down = await waitForNode('Ready=False after containerd stopped', (n) => ready(n)?.status === 'False', 300);
    mark('runtimeDownReported');
    // The real kubelet's words, as the fake kubelet, core's test fixtures and the docs' table have them.
    expect(texts(down)).toEqual(readyTexts.runtimeDown);
    expect(ready(down)?.message).toBe(KubeletNotReadyMessages.containerRuntimeDown);
    expect(docRow('ContainerRuntimeDown')).toContain(`"${ready(down)?.message}"`);
    expect(classifyNode(observation(down), Date.now(), { staleHeartbeatTimeoutMs: 0 }).kind).toBe('ContainerRuntimeDown');
    const back = await waitForNode('Ready=True after the runtime monitor', isReady, 300);
    mark('runtimeRecovered');
    expect(back.status?.nodeInfo?.bootID).toBe(bootId);
    expect((await node.vm.ok('systemctl is-active containerd.service')).trim()).toBe('active');
    const log = await node.vm.ok('journalctl -b --no-pager -t noderepair-health-container-runtime');
    expect(log).toContain('containerd.service health check failed (6/6)');
    expect(log).toContain('containerd.service has no main process; restarting it');
  });

  it('kubelet frozen (SIGSTOP): the controller manager marks the Node Unknown, the kubelet monitor kills and restarts it through its healthz, Ready again without a reboot', async () => {
    expect(await uptimeS()).toBeGreaterThan(BOOT_GRACE_S);
    const pid = await mainPid('kubelet.service');
    expect(pid).toBeGreaterThan(0);
    await node.vm.ok(`kill -STOP ${pid}`);
    mark('kubeletFrozen');
    const unknown = await waitForNode('Ready=Unknown after SIGSTOP', (n) => ready(n)?.status === 'Unknown', 300);
    mark('nodeUnknown');
    expect(texts(unknown)).toEqual(readyTexts.unknown);
    expect(docRow('KubeletUnreachable')).toContain(`\`${ready(unknown)?.reason}\`, "${ready(unknown)?.message}"`);
    expect(classifyNode(observation(unknown), Date.now(), { staleHeartbeatTimeoutMs: 0 }).kind).toBe('KubeletUnreachable');
    const back = await waitForNode('Ready=True after the kubelet monitor', isReady, 300);
    mark('kubeletRecovered');
    expect(back.status?.nodeInfo?.bootID).toBe(bootId);
    const newPid = await mainPid('kubelet.service');
    expect(newPid).not.toBe(pid);
    const log = await node.vm.ok('journalctl -b --no-pager -t noderepair-health-kubelet');
    expect(log).toContain('kubelet.service health check failed (3/3)');
    expect(log).toContain(`killing main process ${pid} of kubelet.service (SIGTERM)`);
    expect(log).toContain(`main process ${pid} of kubelet.service still running after 5s; sending SIGKILL`);
  });

  it('HardReboot through the test hypervisor (core\'s provider port) resets the real node: fenced on the observed RESET, back with a new bootID and Ready, the overlay active', async () => {
    const ctx = { signal: new AbortController().signal };
    const req: ActionRequest = {
      node: NAME,
      providerID: node.providerID,
      action: 'HardReboot',
      actionId: `${NAME}/1/step-0/attempt-1`,
      issuedAt: Date.now(),
      replay: false,
    };
    expect(await provider.execute(req, ctx)).toMatchObject({ kind: 'Accepted' });
    mark('hardRebootSent');
    const fence = await waitFor(
      'the fence',
      async () => {
        const f = await provider.fence(req, ctx);
        return f.kind === 'Fenced' ? f : undefined;
      },
      60_000,
      500,
    );
    expect(fence).toMatchObject({ how: 'ResetObserved' });
    const newBoot = await node.vm.waitForBoot(bootId, 600_000);
    expect(newBoot).not.toBe(bootId);
    // The kubelet starts by itself (its identity is in /etc/kubernetes, a persistent path).
    await waitForNode('Ready with the new bootID', (n) => isReady(n) && n.status?.nodeInfo?.bootID === newBoot, 600);
    mark('readyAfterReboot');
    bootId = newBoot;
    expect(hv.actions(NAME).map((a) => a.actionId)).toEqual([req.actionId]);
    // overlayfs-gen's output, applied at first boot as cloud-init does, is active from this boot on.
    expect((await node.vm.ok('findmnt -rn -o FSTYPE -M /etc | tail -n 1')).trim()).toBe('overlay');
  });

  it('a wrong non-persistent change no restart fixes (scenario 4): noderepair run drains, fences and hard-reboots the node through the test hypervisor; the overlay rolls the change back; Ready with a new bootID, uncordoned', async () => {
    // A workload on the node, owned by a ReplicaSet: the drain evicts only pods something
    // recreates (no ReplicaSet controller runs here, so an evicted pod stays gone).
    const apps = cp.kubeConfig.makeApiClient(AppsV1Api);
    const labels = { app: WORKLOAD };
    const podSpec = { containers: [{ name: 'pause', image: PAUSE_IMAGE, imagePullPolicy: 'Never' }] };
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: { metadata: { name: WORKLOAD }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } } },
    });
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {
          name: WORKLOAD,
          labels,
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: WORKLOAD, uid: rs.metadata?.uid ?? '', controller: true }],
        },
        spec: { ...podSpec, nodeName: NAME },
      },
    });
    await waitFor(
      'the workload pod Running',
      async () => ((await core.readNamespacedPod({ name: WORKLOAD, namespace: 'default' })).status?.phase === 'Running' ? true : undefined),
      300_000,
      2000,
    );

    controller = startController();
    const actionsBefore = hv.actions(NAME).length;

    // The wrong change, on a boot whose /etc is overlayfs-gen's overlay (its upper is tmpfs):
    // a kubelet drop-in with a mistyped flag. The kubelet exits at once on every start. Made
    // once the kubelet monitor is past its boot grace, so its restart comes well before the
    // controller's reboot (the guest is not asked anything while that may happen).
    expect((await node.vm.ok('findmnt -rn -o FSTYPE -M /etc | tail -n 1')).trim()).toBe('overlay');
    await node.vm.ok(`while [ "$(cut -d. -f1 /proc/uptime)" -lt ${BOOT_GRACE_S + 2} ]; do sleep 1; done`, 300_000);
    await node.vm.ok(
      `mkdir -p ${dirname(BROKEN_DROPIN)} && cat > ${BROKEN_DROPIN} <<'EOF'
[Service]
ExecStart=
ExecStart=/usr/local/bin/kubelet --config=/var/lib/kubelet/config.yaml --kubeconfig=/etc/kubernetes/kubelet.conf --hostname-override=\${NODE_NAME} --provider-id=\${PROVIDER_ID} --max-pod=50
EOF
systemctl daemon-reload && systemctl restart kubelet.service`,
    );
    const tBroken = Date.now();
    mark('brokenChange');
    // No restart fixes it: the kubelet monitor's restart starts the same broken command line.
    const monitorLog = () => node.vm.ok('journalctl -b --no-pager -t noderepair-health-kubelet');
    await waitFor(
      'the kubelet monitor restarting the broken kubelet',
      async () => ((await monitorLog()).includes('restarted kubelet.service') ? true : undefined),
      40_000,
      2000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await monitorLog()}`);
    });
    expect(await monitorLog()).toContain('kubelet.service health check failed (3/3)');
    expect(await node.vm.ok('journalctl -b --no-pager -u kubelet.service')).toContain('unknown flag: --max-pod');
    const unknown = await waitForNode('Ready=Unknown after the broken change', (n) => ready(n)?.status === 'Unknown', 300);
    mark('brokenUnknown');
    expect(classifyNode(observation(unknown), Date.now(), { staleHeartbeatTimeoutMs: 0 }).kind).toBe('KubeletUnreachable');

    // The repair: cordon, drain, HardReboot through the provider, fence, Ready, uncordon.
    const action = await waitFor(
      "the controller's action in the hypervisor's records",
      async () => hv.actions(NAME)[actionsBefore],
      300_000,
      1000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${controller?.tail()}`);
    });
    mark('rebootExecuted');
    expect(action.action).toBe('HardReboot');
    const newBoot = await node.vm.waitForBoot(bootId, 600_000);
    expect(newBoot).not.toBe(bootId);
    const repaired = await waitForNode(
      'Ready with the new bootID, uncordoned, without the out-of-service taint',
      (n) => isReady(n) && n.status?.nodeInfo?.bootID === newBoot && n.spec?.unschedulable !== true && !hasOutOfService(n),
      600,
    );
    mark('repaired');
    bootId = newBoot;
    expect(repaired.spec?.providerID).toBe(node.providerID);
    // The overlay rolled the change back at boot: the drop-in is gone, the kubelet's command
    // line is the image's again.
    expect((await node.vm.exec(`test -e ${BROKEN_DROPIN}`)).rc).not.toBe(0);
    expect(await node.vm.ok('systemctl show -p ExecStart --value kubelet.service')).not.toContain('--max-pod');
    // The evicted pod could not terminate on the unreachable node; after the fence, the taint
    // let the pod GC free it.
    await expect(core.readNamespacedPod({ name: WORKLOAD, namespace: 'default' })).rejects.toMatchObject({ code: 404 });
    // Exactly one action, whatever the reconciles in between.
    expect(hv.actions(NAME).slice(actionsBefore).map((a) => a.action)).toEqual(['HardReboot']);

    const events = await waitFor(
      'RepairSucceeded',
      async () => {
        const ev = await repairEvents();
        return ev.some((e) => e.reason === 'RepairSucceeded') ? ev : undefined;
      },
      120_000,
      2000,
    );
    const order = ['RepairStarted', 'Cordoned', 'DrainIncomplete', 'ActionAccepted', 'Fenced', 'Uncordoned', 'RepairSucceeded'];
    expect(events.map((e) => e.reason ?? '').filter((r) => order.includes(r))).toEqual(order);
    // The timeline, seconds from the broken change (the Events' own times).
    const repairTimeline = Object.fromEntries(events.map((e) => [e.reason, Math.round((eventTime(e) - tBroken) / 100) / 10]));
    // The Node's own transitions (whole seconds, as the API keeps them).
    const transition = (n: V1Node) => Math.round((new Date(ready(n)?.lastTransitionTime ?? 0).getTime() - tBroken) / 100) / 10;
    process.stdout.write(
      `${JSON.stringify({ benchmark: 'vm-node/real-node-repair', from: 'the broken change', Unknown: transition(unknown), ...repairTimeline, ReadyAgain: transition(repaired), fenced: events.find((e) => e.reason === 'Fenced')?.note })}\n`,
    );
  });

  // Issue 46: a node can be Ready and still broken. node-problem-detector (built from its module,
  // its kernel monitor on /dev/kmsg, reporting as the kubelet's identity) sets KernelDeadlock=True
  // on a hung-task line; the policy's rule for it (its own wait and ladder) hard-reboots the node
  // through the test hypervisor; NPD starts again with the node and resets the condition.
  it('node-problem-detector sets KernelDeadlock=True (DockerHung) on a hung-task kernel line while the node stays Ready; noderepair run hard-reboots it per its KernelDeadlock rule; Ready with a new bootID, the condition cleared', async () => {
    controller ??= startController();
    const ctl = controller;
    // NPD is the one built here, and runs: its defaults on the Node, the docs' trace texts.
    expect((await node.vm.ok('/usr/local/bin/node-problem-detector --version')).trim()).toBe(NPD_VERSION);
    expect((await node.vm.ok(`systemctl is-active ${NPD_UNIT}`)).trim()).toBe('active');
    const before = await waitForNode("node-problem-detector's KernelDeadlock=False", (n) => deadlock(n)?.status === 'False', 300);
    expect(deadlockTexts(before)).toEqual({ status: 'False', reason: 'KernelHasNoDeadlock', message: 'kernel has no deadlock' });
    expect(deadlockTexts(before)).toEqual(traceDeadlock('False'));
    expect(isReady(before)).toBe(true);
    const actionsBefore = hv.actions(NAME).length;

    const tHung = Date.now();
    // As the kernel's hung-task detector would print it (a user write to /dev/kmsg lands in the
    // same ring buffer NPD's kmsg watcher reads).
    await node.vm.ok(`printf '%s\\n' '${HUNG_TASK_LINE}' > /dev/kmsg`);
    mark('hungTaskLine');
    const hung = await waitForNode('KernelDeadlock=True from node-problem-detector', (n) => deadlock(n)?.status === 'True', 120);
    const tSet = Date.now();
    mark('kernelDeadlockSet');
    // NPD's exact texts: the permanent rule's reason, the kernel's line as the message.
    expect(deadlockTexts(hung)).toEqual({ status: 'True', reason: 'DockerHung', message: HUNG_TASK_LINE });
    // The example policy's trace and its comment have the same texts; the test's rule (as the
    // example's) matches the real condition.
    expect(deadlockTexts(hung)).toEqual(traceDeadlock('True'));
    expect(examplePolicy).toContain(`(reason ${deadlock(hung)?.reason}, the`);
    expect(examplePolicy).toContain(`"${deadlock(hung)?.message}"`);
    const rule = resolveRepairPolicy({ unhealthyConditions: [{ type: 'KernelDeadlock', status: 'True', reason: 'DockerHung' }] });
    if (either.isLeft(rule)) throw new Error(rule.left);
    const uc = rule.right.unhealthyConditions[0];
    if (uc === undefined) throw new Error('no rule');
    expect(conditionMatches(uc, { type: 'KernelDeadlock', status: 'True', reason: deadlock(hung)?.reason, message: deadlock(hung)?.message, transitionAt: undefined, heartbeatAt: undefined })).toBe(true);
    // Ready and broken: the kubelet sees nothing wrong.
    expect(isReady(hung)).toBe(true);
    expect(docRow('ConditionUnhealthy')).toContain('`KernelDeadlock=True`');
    // core's docs quote both texts (the rule-per-condition section).
    const prose = causesDoc.replace(/\s+/g, ' ');
    expect(prose).toContain(`reason \`${deadlock(hung)?.reason}\`, the kernel's line as message (\`${deadlock(hung)?.message}\``);
    expect(prose).toContain(`\`${deadlock(before)?.reason}\`, "${deadlock(before)?.message}"`);

    // The repair: per the KernelDeadlock rule, one HardReboot through the test hypervisor.
    const action = await waitFor(
      "the controller's action in the hypervisor's records",
      async () => hv.actions(NAME)[actionsBefore],
      (DEADLOCK_S + 240) * 1000,
      1000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${ctl.tail()}`);
    });
    mark('deadlockRebootExecuted');
    expect(action.action).toBe('HardReboot');
    const newBoot = await node.vm.waitForBoot(bootId, 600_000);
    expect(newBoot).not.toBe(bootId);
    // Ready with the new boot, and the condition cleared (NPD resets it when it starts): seen
    // in whichever order they come, each at its first sighting.
    const seen: Record<string, number> = {};
    const repaired = await waitForNode(
      'Ready with the new bootID, KernelDeadlock=False, uncordoned',
      (n) => {
        const now = Date.now();
        if (isReady(n) && n.status?.nodeInfo?.bootID === newBoot) seen.ReadyAgain ??= now;
        if (deadlock(n)?.status === 'False') seen.conditionCleared ??= now;
        return seen.ReadyAgain !== undefined && seen.conditionCleared !== undefined && n.spec?.unschedulable !== true && !hasOutOfService(n);
      },
      600,
    );
    mark('deadlockRepaired');
    bootId = newBoot;
    expect(deadlockTexts(repaired)).toEqual({ status: 'False', reason: 'KernelHasNoDeadlock', message: 'kernel has no deadlock' });
    const reset = hv.events(NAME).slice(action.eventSeq).find((e) => e.event === 'RESET');
    if (reset === undefined) throw new Error(`no RESET after the action: ${JSON.stringify(hv.events(NAME).slice(action.eventSeq))}`);
    expect(new Date(deadlock(repaired)?.lastTransitionTime ?? 0).getTime()).toBeGreaterThan(reset.at - 5_000);
    // Exactly one action, per the KernelDeadlock rule.
    expect(hv.actions(NAME).slice(actionsBefore).map((a) => a.action)).toEqual(['HardReboot']);
    // This repair's Events, by their last occurrence: an Event whose reason and note repeat an
    // earlier one within 30 min (scenario 4's Uncordoned) is that Event's series, not a new one.
    const lastSeen = (e: EventsV1Event) => (e.series?.lastObservedTime ? new Date(e.series.lastObservedTime).getTime() : eventTime(e));
    const events = await waitFor(
      'RepairSucceeded',
      async () => {
        const ev = (await repairEvents()).filter((e) => lastSeen(e) >= tHung - 1000).sort((a, b) => lastSeen(a) - lastSeen(b));
        return ev.some((e) => e.reason === 'RepairSucceeded') ? ev : undefined;
      },
      120_000,
      2000,
    );
    const order = ['RepairStarted', 'Cordoned', 'ActionAccepted', 'Uncordoned', 'RepairSucceeded'];
    expect(events.map((e) => e.reason ?? '').filter((r) => order.includes(r))).toEqual(order);
    expect(events.find((e) => e.reason === 'RepairStarted')?.note).toContain('KernelDeadlock');
    // The repair climbed the rule's ladder: what the state annotation recorded when it ended.
    const state = readStateAnnotation(repaired as Parameters<typeof readStateAnnotation>[0], 'noderepair.io/repair-state');
    if (either.isLeft(state)) throw new Error(state.left);
    expect(state.right?.lastRemediation).toMatchObject({ result: 'Succeeded', rule: { type: 'KernelDeadlock', status: 'True', reason: 'DockerHung' } });

    const at = (t: number | undefined) => (t === undefined ? null : Math.round((t - tHung) / 100) / 10);
    const evAt = (reason: string) => {
      const e = events.find((x) => x.reason === reason);
      return e === undefined ? null : at(lastSeen(e));
    };
    const npdTimeline = {
      benchmark: 'vm-node/npd-kernel-deadlock',
      from: 'the hung-task line',
      conditionSet: at(tSet),
      conditionSetAt: at(new Date(deadlock(hung)?.lastTransitionTime ?? 0).getTime()),
      RepairStarted: evAt('RepairStarted'),
      ActionAccepted: evAt('ActionAccepted'),
      resetObserved: at(reset.at),
      ReadyAgain: at(seen.ReadyAgain),
      conditionCleared: at(seen.conditionCleared),
      Uncordoned: evAt('Uncordoned'),
      RepairSucceeded: evAt('RepairSucceeded'),
      events: events.map((e) => e.reason),
      reason: deadlock(hung)?.reason,
      message: deadlock(hung)?.message,
    };
    process.stdout.write(`${JSON.stringify(npdTimeline)}\n`);
    // The timeline's order where it is causal.
    const t = (x: number | null) => x ?? Number.NaN;
    expect(t(npdTimeline.RepairStarted)).toBeGreaterThanOrEqual(t(npdTimeline.conditionSet) - 2);
    expect(t(npdTimeline.resetObserved)).toBeGreaterThan(t(npdTimeline.RepairStarted) - 1);
    expect(t(npdTimeline.ReadyAgain)).toBeGreaterThan(t(npdTimeline.resetObserved));
    expect(t(npdTimeline.conditionCleared)).toBeGreaterThan(t(npdTimeline.resetObserved));
  });

  // Issue 42: a machine someone powered off without any announcement (a maintenance, an
  // operator at the hypervisor) stays off. Before, the node was simply Unknown to the
  // controller, and past its timeout the HardReboot powered the VM back on.
  it('an operator powers the VM off at the hypervisor with no announcement: noderepair run asks the power state past its timeout, says the node was shut down and never powers it on; powered on again by the operator, Ready with a new bootID', async () => {
    if (controller === undefined) throw new Error('scenario 4 starts noderepair run');
    const actions = hv.actions(NAME).length;
    const started = (await repairEvents()).filter((e) => e.reason === 'RepairStarted').length;
    const tOff = Date.now();
    await hv.operatorPowerOff(NAME);
    mark('operatorPowerOff');
    const off = await waitForNode('Ready=Unknown once off', (n) => ready(n)?.status === 'Unknown', 300);
    mark('operatorOffUnknown');
    // Past the policy's Unknown timeout the controller would start a repair: it asks the
    // provider first, hears "off, by someone", and waits as for an announced shutdown.
    const shutDown = await waitFor(
      'a NodeShutDown Event naming the operator',
      async () =>
        (await repairEvents()).find((e) => e.reason === 'NodeShutDown' && eventTime(e) >= tOff - 1000 && /operator/.test(e.note ?? '')),
      (UNHEALTHY_S + 120) * 1000,
      2000,
    );
    mark('operatorOffSeen');
    expect(shutDown.note).toMatch(/operator/);
    const unknownSince = new Date(ready(off)?.lastTransitionTime ?? Date.now()).getTime();
    await sleep(Math.max(0, unknownSince + (UNHEALTHY_S + 30) * 1000 - Date.now()));
    // Nothing sent to the hypervisor, no repair started, the VM still off.
    expect(hv.actions(NAME).length).toBe(actions);
    expect((await repairEvents()).filter((e) => e.reason === 'RepairStarted').length).toBe(started);
    expect(await provider.powerState!({ node: NAME, providerID: node.providerID }, { signal: new AbortController().signal })).toMatchObject({ kind: 'Off', byRequest: true });
    expect(controller.running).toBe(true);

    await hv.operatorPowerOn(NAME);
    const newBoot = await node.vm.waitForBoot(bootId, 600_000);
    expect(newBoot).not.toBe(bootId);
    await waitForNode('Ready again after the operator powered it on', (n) => isReady(n) && n.status?.nodeInfo?.bootID === newBoot, 600);
    mark('operatorOnReady');
    bootId = newBoot;
    expect(hv.actions(NAME).length).toBe(actions);
  });

  // Last: the node stays off. `noderepair run` (started by scenario 4) watches it all along; core's
  // pure decision, the one the controller runs on what it reads, covers the day after.
  it('graceful shutdown (systemctl poweroff): the kubelet reports "node is shutting down"; noderepair run waits past its timeout and never powers the VM on; core decides no action a day later', async () => {
    const policy = resolveRepairPolicy({});
    if (either.isLeft(policy)) throw new Error(policy.left);
    await node.vm.ok('systemctl poweroff --no-block');
    mark('poweroffRequested');
    const shutting = await waitForNode('Ready=False while shutting down', (n) => ready(n)?.status === 'False', 120);
    mark('shutdownReported');
    expect(texts(shutting)).toEqual(readyTexts.shuttingDown);
    expect(ready(shutting)?.message).toBe(KubeletNotReadyMessages.shuttingDown);
    expect(docRow('ShuttingDown')).toContain(`"${ready(shutting)?.message}"`);
    const t1 = Date.now();
    const d1 = decideRepair(observation(shutting), undefined, policy.right, t1);
    expect(d1.cause.kind).toBe('ShuttingDown');
    expect(d1.actions).toEqual([]);
    await node.vm.waitForExit(300_000);
    mark('poweredOff');
    const off = await waitForNode('Ready=Unknown once off', (n) => ready(n)?.status === 'Unknown', 300);
    mark('offUnknown');
    // Unknown after an announced shutdown: powered off on purpose, not a failure. The default
    // policy (shutdown.poweredOff: Wait) waits for ever: still no action a day later.
    const t2 = Date.now();
    const d2 = decideRepair(observation(off), d1.nextState, policy.right, t2);
    expect(d2.actions).toEqual([]);
    const d3 = decideRepair(observation(off), d2.nextState, policy.right, t2 + 24 * 3600_000);
    expect(d3.actions).toEqual([]);
    expect(d3.reason).toMatch(/shut/i);

    // The controller: it saw the shutdown (NodeShutDown), and past the policy's Unknown timeout
    // it has started no repair and sent the hypervisor nothing (a HardReboot would power the
    // VM on, as Nova's does a SHUTOFF server).
    if (controller === undefined) throw new Error('scenario 4 starts noderepair run');
    const actions = hv.actions(NAME).length;
    const repairsStarted = (await repairEvents()).filter((e) => e.reason === 'RepairStarted').length;
    await waitFor('the NodeShutDown Event', async () => ((await repairEvents()).some((e) => e.reason === 'NodeShutDown') ? true : undefined), 60_000, 2000);
    const unknownSince = new Date(ready(off)?.lastTransitionTime ?? Date.now()).getTime();
    await sleep(Math.max(0, unknownSince + (UNHEALTHY_S + 30) * 1000 - Date.now()));
    mark('offPastTimeout');
    expect(hv.actions(NAME).length).toBe(actions);
    expect((await repairEvents()).filter((e) => e.reason === 'RepairStarted').length).toBe(repairsStarted);
    expect(isReady(await readNode())).toBe(false);
    // It ran throughout, and stops cleanly; no credential ever reached its output.
    expect(controller.running).toBe(true);
    expect(await controller.stop()).toEqual({ code: 0, signal: null });
    expect(controller.lines.join('\n')).not.toContain(cp.adminToken);
  });
});
