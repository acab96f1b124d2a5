// issue 22, the proof that `noderepair run` repairs for real on a cluster without Cluster API:
// envtest (real kube-apiserver + kube-controller-manager's node lifecycle controller), Nodes
// whose providerIDs are REAL Nova servers of the OpenStack test bed (Keystone + Nova, fake virt
// driver), and the COMPILED CLI as a child process, started with exactly the command the
// README's "Without Cluster API" section gives:
//
//   OS_CLIENT_CONFIG_FILE=clouds.yaml node packages/core/dist/cli/noderepair.js run \
//     --provider openstack --cloud <cloud> --policy policy.yaml --kubeconfig <file> --leader-elect ...
//
// It authenticates as the ServiceAccount of examples/standalone/rbac.yaml and, as its policy
// has a Replace step, rbac-replace.yaml (applied verbatim, token from the TokenRequest API),
// never as envtest's admin: a verb the manifests lack (e.g. `delete` on nodes for Replace)
// fails here. Nova's own os-instance-actions are the evidence,
// one action per attempt; the kind of each reboot is read from Nova too: nova-compute is
// frozen while the controller sends it, so the server keeps the task_state nova-api gave it
// (`rebooting` for SOFT, `rebooting_hard` for HARD) until the test has read it.
//
// The one fake link is FakeKubeletFollowsNova (see its file): a fake kubelet comes back only
// after Nova's records show a reboot finished, and only when the scenario says the guest does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKubeClient,
  EventResource,
  isNotFound,
  NodeResource,
  type KubeClient,
  type KubeEvent,
  type KubeNode,
} from '@noderepair/core/kube';
import {
  freePort,
  startControlPlane,
  startFakeKubelet,
  writeKubeconfig,
  type ControlPlane,
  type FakeKubelet,
} from '@noderepair/envtest';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyObjects,
  serviceAccountToken,
  type ManifestObject,
} from '../../chaos/src/least-privilege.js';
import { until } from '../../capo-remediation/test/support/remediation-env.js';
import { startOpenStackTestbed, type OpenStackTestbed } from '../src/index.js';
import { FakeKubeletFollowsNova } from './support/fake-kubelet-follows-nova.js';
import { NoderepairCli, repoRoot } from './support/noderepair-cli.js';
import { TESTBED_CLOUD } from './support/testbed-world.js';

const NS = 'noderepair-system';
const SCOPE = 'e2e.noderepair.dev/standalone';
const STATE = 'noderepair.io/repair-state';
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';

let tb: OpenStackTestbed;
let cp: ControlPlane;
let admin: KubeClient;
let dir: string;
/** A kubeconfig with the token of examples/standalone's ServiceAccount. */
let kubeconfig: string;
let token: string;
let cloudsFile: string;
let computePaused = false;

beforeAll(async () => {
  tb = await startOpenStackTestbed();
  cp = await startControlPlane({
    // Ready=Unknown 8 s after the last heartbeat (real default: 50 s).
    controllerManager: { nodeMonitorGracePeriodSeconds: 8, nodeMonitorPeriodSeconds: 1 },
    progress: (l) => process.stderr.write(`${l}\n`),
  });
  admin = createKubeClient(cp.kubeConfig);
  dir = mkdtempSync(join(tmpdir(), 'noderepair-standalone-e2e-'));
  const rbac = ['rbac.yaml', 'rbac-replace.yaml'].flatMap((f) =>
    YAML.parseAllDocuments(readFileSync(join(repoRoot, 'examples', 'standalone', f), 'utf8'))
      .map((d) => d.toJS() as ManifestObject | null)
      .filter((o): o is ManifestObject => o !== null),
  );
  await applyObjects(cp.kubeConfig, rbac);
  token = await serviceAccountToken(cp.kubeConfig, NS, 'noderepair');
  kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, {
    server: cp.server,
    caPem: cp.caPem,
    token,
    user: 'system:serviceaccount:noderepair-system:noderepair',
  });
  // The test bed's clouds.yaml as a user's: the CLI finds it through OS_CLIENT_CONFIG_FILE.
  cloudsFile = join(dir, 'clouds.yaml');
  writeFileSync(cloudsFile, tb.cloudsYaml, { mode: 0o600 });
});

afterAll(async () => {
  // The rest of the suite needs nova-compute running.
  if (computePaused) await tb?.resumeCompute().catch(() => undefined);
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The CLI the current scenario runs: a wait ends at once, naming it, when the CLI exits. */
let current: NoderepairCli | undefined;

/** until(), failing at once with the CLI's last lines when the CLI is no longer running. */
async function whileRunning<T>(
  what: string,
  f: () => Promise<T | undefined | false>,
  timeoutMs: number,
  everyMs = 300,
): Promise<T> {
  return until(
    what,
    async () => {
      if (current !== undefined && !current.running) return { exited: current } as const;
      return f();
    },
    timeoutMs,
    everyMs,
  ).then((v) => {
    if (typeof v === 'object' && v !== null && 'exited' in v)
      throw new Error(
        `noderepair run exited while waiting for ${what}:\n${current?.lines.slice(-15).join('\n')}`,
      );
    return v as T;
  });
}

function writePolicy(name: string, policy: Record<string, unknown>): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, YAML.stringify(policy));
  return path;
}

/** `noderepair run --provider openstack` as the README gives it, scoped to one label value. */
async function startCli(scope: string, policyPath: string): Promise<NoderepairCli> {
  return NoderepairCli.start(
    [
      'run',
      '--provider',
      'openstack',
      '--cloud',
      TESTBED_CLOUD,
      '--policy',
      policyPath,
      '--kubeconfig',
      kubeconfig,
      '--leader-elect',
      '--leader-election-namespace',
      NS,
      '--leader-election-id',
      `noderepair-${scope}`,
      '--label-selector',
      `${SCOPE}=${scope}`,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      `127.0.0.1:${await freePort()}`,
    ],
    {
      OS_CLIENT_CONFIG_FILE: cloudsFile,
      POD_NAME: `noderepair-${scope}-0`,
      POD_NAMESPACE: NS,
      // No ~/.config/openstack/clouds.yaml of this machine: only OS_CLIENT_CONFIG_FILE.
      HOME: dir,
    },
    { echo: `cli-${scope}` },
  );
}

interface Worker {
  readonly name: string;
  readonly serverId: string;
  readonly kubelet: FakeKubelet;
  readonly guest: FakeKubeletFollowsNova;
  close(): Promise<void>;
}

/** A real Nova server, ACTIVE, and the Node of its (fake) kubelet, in the controller's scope. */
async function worker(
  name: string,
  scope: string,
  comesBackAfter: (n: number) => boolean,
): Promise<Worker> {
  const serverId = await tb.createServer(name);
  await tb.waitForServer(serverId, 'ACTIVE');
  const kubelet = await startFakeKubelet(cp.kubeConfig, {
    name,
    providerID: `openstack:///${serverId}`,
    labels: { [SCOPE]: scope },
    heartbeatSeconds: 1,
  });
  const guest = await FakeKubeletFollowsNova.start(tb, serverId, kubelet, {
    comesBackAfter,
    bootMs: 1_000,
  });
  return {
    name,
    serverId,
    kubelet,
    guest,
    close: async () => {
      await guest.stop();
      await kubelet.stop();
      await admin.delete(NodeResource, name).catch(() => undefined);
    },
  };
}

const reboots = async (serverId: string) =>
  (await tb.novaActions(serverId)).filter((a) => a.action === 'reboot');

/**
 * Waits for Nova to record the server's `n`-th reboot while nova-compute is frozen (the caller
 * froze it), reads the task_state nova-api set for it, and lets compute go on.
 */
async function frozenRebootKind(serverId: string, n: number, timeoutMs: number): Promise<string> {
  try {
    await whileRunning(
      `Nova's record of reboot #${n}`,
      async () => (await reboots(serverId)).length >= n,
      timeoutMs,
    );
    return String((await tb.serverState(serverId)).taskState);
  } finally {
    await tb.resumeCompute();
    computePaused = false;
  }
}

async function freezeCompute(): Promise<void> {
  await tb.pauseCompute();
  computePaused = true;
}

async function nodeEvents(name: string): Promise<KubeEvent[]> {
  return (await admin.list<KubeEvent>(EventResource, { namespace: 'default' })).items.filter(
    (e) => e.regarding?.name === name,
  );
}

/** The actions the provider accepted, in order, from the controller's Events. */
const accepted = (evs: KubeEvent[]) =>
  evs
    .filter((e) => e.reason === 'ActionAccepted')
    .sort((a, b) => String(a.eventTime).localeCompare(String(b.eventTime)))
    .map((e) => e.action);

const repairPhase = (n: KubeNode | undefined) => {
  const raw = n?.metadata?.annotations?.[STATE];
  return raw ? (JSON.parse(raw) as { phase?: string }).phase : undefined;
};

async function nodeOrGone(name: string): Promise<KubeNode | 'gone'> {
  try {
    return await admin.get<KubeNode>(NodeResource, name);
  } catch (e) {
    if (isNotFound(e)) return 'gone';
    throw e;
  }
}

async function serverOrGone(id: string): Promise<string> {
  try {
    return (await tb.serverState(id)).status;
  } catch (e) {
    if (/HTTP 404/.test((e as Error).message)) return 'gone';
    throw e;
  }
}

/** The lines of the CLI's output that carry a secret it was given. */
const leaks = (cli: NoderepairCli) =>
  cli.lines.filter((l) => l.includes(tb.applicationCredential.secret) || l.includes(token));

describe('noderepair run --provider openstack (compiled CLI, least-privilege RBAC, real Nova)', () => {
  const scope = 'repair';
  let cli: NoderepairCli;

  beforeAll(async () => {
    const policy = writePolicy(scope, {
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '2s' },
        { type: 'Ready', status: 'False', timeout: '2s' },
      ],
      nodeStartupTimeout: '2m',
      minHealthyPeriod: '3s',
      retryBackoff: '2s',
      // Replace is written out: the policy's opt-in to deleting servers and Nodes.
      ladder: [
        { action: 'SoftReboot', timeout: '25s', attempts: 1 },
        { action: 'HardReboot', timeout: '25s', attempts: 1 },
        { action: 'Replace', timeout: '3m', attempts: 1 },
      ],
      stormGuard: {
        maxUnhealthy: '100%',
        minUnhealthyAllowed: 1,
        maxInFlight: 2,
        recheckInterval: '1s',
        cooldown: '1s',
      },
      drain: { enabled: true, timeout: '20s', outOfServiceAfter: '5s' },
    });
    cli = await startCli(scope, policy);
    current = cli;
  });

  afterAll(async () => {
    const exit = await cli?.stop();
    // SIGTERM is a clean stop.
    expect(exit).toEqual({ code: 0, signal: null });
    expect(leaks(cli)).toEqual([]);
  });

  it('kubelet stops: exactly one SOFT reboot in Nova, the node back Ready, uncordoned', async () => {
    const w = await worker('standalone-soft', scope, () => true);
    try {
      const bootBefore = (await admin.get<KubeNode>(NodeResource, w.name)).status?.nodeInfo?.bootID;
      // Frozen before the node fails: the reboot the controller sends stays in nova-api's
      // task_state until read.
      await freezeCompute();
      w.kubelet.stopHeartbeats();
      const kind = await frozenRebootKind(w.serverId, 1, 120_000);
      expect(kind).toBe('rebooting'); // SOFT (a HARD one is rebooting_hard)

      const node = await whileRunning(
        'the node Healthy again and uncordoned',
        async () => {
          const n = await admin.get<KubeNode>(NodeResource, w.name);
          const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
          return ready === 'True' && n.spec?.unschedulable !== true && repairPhase(n) === 'Healthy'
            ? n
            : undefined;
        },
        120_000,
        500,
      );
      expect(w.guest.reboots.map((r) => [r.n, r.event.result, r.kubeletBroughtBack])).toEqual([
        [1, 'Success', true],
      ]);
      expect(node.status?.nodeInfo?.bootID).not.toBe(bootBefore);
      expect(node.spec?.taints?.some((t) => t.key === OUT_OF_SERVICE) ?? false).toBe(false);
      const evs = await until(
        'RepairSucceeded and Uncordoned events',
        async () => {
          const e = await nodeEvents(w.name);
          const reasons = e.map((x) => x.reason);
          return reasons.includes('RepairSucceeded') && reasons.includes('Uncordoned')
            ? e
            : undefined;
        },
        30_000,
      );
      const reasons = evs.map((e) => e.reason);
      // It was cordoned (by the controller, so it uncordons it) before the reboot.
      expect(reasons).toContain('Cordoned');
      expect(accepted(evs)).toEqual(['SoftReboot']);
      // A few seconds more: nothing else is sent for this node.
      await sleep(5_000);
      expect((await tb.novaActions(w.serverId)).map((a) => a.action)).toEqual(['create', 'reboot']);
      expect(leaks(cli)).toEqual([]);
    } finally {
      if (computePaused) await tb.resumeCompute().catch(() => undefined);
      computePaused = false;
      await w.close();
    }
  });

  it('node never back: SOFT, then HARD reboot, then Replace: the Nova server deleted and the Node gone, one action each', async () => {
    const w = await worker('standalone-replace', scope, () => false);
    // Node then server, every 250 ms: the Node must never be gone while its server is still
    // there (the Node is deleted only once the machine is fenced, i.e. deleted in Nova).
    const violations: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        try {
          if ((await nodeOrGone(w.name)) === 'gone') {
            const s = await serverOrGone(w.serverId);
            if (s !== 'gone' && s !== 'DELETED' && s !== 'SOFT_DELETED')
              violations.push(`Node gone while the server is ${s}`);
          }
        } catch {
          // a failed read is no evidence either way
        }
        await sleep(250);
      }
    })();
    try {
      await freezeCompute();
      w.kubelet.stopHeartbeats();
      expect(await frozenRebootKind(w.serverId, 1, 120_000)).toBe('rebooting');
      // The SOFT reboot finished in Nova and the guest stays down; freeze again before the
      // SoftReboot step's 25 s run out, so the HARD reboot is caught the same way.
      await whileRunning(
        'Nova finished the SOFT reboot',
        async () => w.guest.reboots.length >= 1,
        60_000,
      );
      await freezeCompute();
      expect(await frozenRebootKind(w.serverId, 2, 120_000)).toBe('rebooting_hard');

      await whileRunning(
        'the Node object gone',
        async () => (await nodeOrGone(w.name)) === 'gone',
        300_000,
        500,
      );
      expect(await serverOrGone(w.serverId)).toBe('gone');
      // A few seconds more: nothing else is sent (no second delete, no reboot of a ghost).
      await sleep(5_000);
      const actions = await tb.novaActions(w.serverId);
      expect(actions.map((a) => a.action)).toEqual(['create', 'reboot', 'reboot', 'delete']);
      const terminate = (await tb.novaActionEvents(w.serverId, actions[3]?.requestId ?? '')).find(
        (e) => e.event === 'compute_terminate_instance',
      );
      expect(terminate?.result).toBe('Success');
      expect(w.guest.reboots.map((r) => r.kubeletBroughtBack)).toEqual([false, false]);
      const evs = await nodeEvents(w.name);
      expect(accepted(evs)).toEqual(['SoftReboot', 'HardReboot', 'Replace']);
      sampling = false;
      await sampler;
      expect(violations).toEqual([]);
      expect(leaks(cli)).toEqual([]);
    } finally {
      sampling = false;
      await sampler;
      if (computePaused) await tb.resumeCompute().catch(() => undefined);
      computePaused = false;
      await w.close();
    }
  });
});

describe('noderepair run --provider openstack: a Command step that fails escalates', () => {
  const scope = 'command';
  let cli: NoderepairCli;
  let runs: string;

  beforeAll(async () => {
    // The site's automation: it records every run (node and action id), then fails.
    runs = join(dir, 'command-runs.txt');
    const script = join(dir, 'site-replace.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        `echo "$NODEREPAIR_NODE $NODEREPAIR_ACTION $NODEREPAIR_ACTION_ID" >> '${runs}'`,
        "echo 'site automation: no capacity in this zone' >&2",
        'exit 1',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const policy = writePolicy(scope, {
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
      minHealthyPeriod: '3s',
      retryBackoff: '2s',
      ladder: [
        { action: 'Command', command: [script], commandTimeout: '20s', timeout: '20s' },
        { action: 'SoftReboot', timeout: '25s', attempts: 1 },
      ],
      stormGuard: {
        maxUnhealthy: '100%',
        minUnhealthyAllowed: 1,
        recheckInterval: '1s',
        cooldown: '1s',
      },
      drain: { enabled: true, timeout: '20s', outOfServiceAfter: '5s' },
    });
    cli = await startCli(scope, policy);
    current = cli;
  });

  afterAll(async () => {
    const exit = await cli?.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(leaks(cli)).toEqual([]);
  });

  it('the command exits 1: the attempt fails once and the ladder goes on to a SOFT reboot in Nova', async () => {
    const w = await worker('standalone-command', scope, () => true);
    try {
      await freezeCompute();
      w.kubelet.stopHeartbeats();
      expect(await frozenRebootKind(w.serverId, 1, 120_000)).toBe('rebooting');
      await whileRunning(
        'the node Healthy again and uncordoned',
        async () => {
          const n = await admin.get<KubeNode>(NodeResource, w.name);
          return n.spec?.unschedulable !== true && repairPhase(n) === 'Healthy' ? n : undefined;
        },
        120_000,
        500,
      );
      // The command ran once, for this node, before the reboot was sent.
      const lines = readFileSync(runs, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^${w.name} Command \\S+$`));
      const evs = await nodeEvents(w.name);
      const failed = evs.filter((e) => e.reason === 'RemediationFailed');
      expect(failed.map((e) => e.action)).toEqual(['Command']);
      // The Event names the failure with the end of the program's stderr.
      expect(failed[0]?.note).toContain('no capacity in this zone');
      expect(accepted(evs)).toEqual(['SoftReboot']);
      await sleep(5_000);
      expect((await tb.novaActions(w.serverId)).map((a) => a.action)).toEqual(['create', 'reboot']);
      expect(readFileSync(runs, 'utf8').trim().split('\n')).toHaveLength(1);
    } finally {
      if (computePaused) await tb.resumeCompute().catch(() => undefined);
      computePaused = false;
      await w.close();
    }
  });
});

describe('noderepair run --provider dry-run', () => {
  it('without --dry-run: refuses to start, exits non-zero and names the flag', async () => {
    const policy = writePolicy('refuse', {});
    const cli = NoderepairCli.start(
      [
        'run',
        '--provider',
        'dry-run',
        '--policy',
        policy,
        '--kubeconfig',
        kubeconfig,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      { HOME: dir },
    );
    const exit = await Promise.race([
      cli.exited,
      sleep(30_000).then(() => 'still running' as const),
    ]);
    if (exit === 'still running') await cli.stop();
    expect(exit).not.toBe('still running');
    expect(exit).not.toEqual({ code: 0, signal: null });
    expect((exit as { code: number | null }).code).not.toBe(null);
    const err = cli.lines.filter((l) => l.startsWith('err ')).join('\n');
    expect(err).toMatch(/--dry-run/);
    expect(err).toMatch(/dry-run provider|provider "?dry-run"?/);
  });
});
