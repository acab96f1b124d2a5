// A Command site step on a real kube-apiserver with the real node lifecycle controller
// (envtest): the site's program runs for real (a /bin/sh script) and exits 1, so the attempt
// fails and the ladder escalates to the next step, which a FAKE provider records and answers
// by rebooting the node's fake kubelet. The program is never run twice for its attempt, the
// wrapped provider never sees the Command, and the failure's Event names the exit status and
// stderr, never the environment's secrets. A site step never fences: no out-of-service taint.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor, type FakeKubelet } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { afterAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../kube/client-node/index.js';
import { EventResource } from '../kube/resource.js';
import type { KubeEvent } from '../kube/types.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { withSiteSteps } from '../provider/site-steps.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/command-step-scope';
const OUT_OF_SERVICE = 'node.kubernetes.io/out-of-service';
const dir = mkdtempSync(join(tmpdir(), 'command-step-int-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * FAKE next-step provider: records every request and fence query, and "hard-reboots" a node
 * by rebooting its fake kubelet (once per action id, as the port requires).
 */
class RecordingRebootProviderFake implements MachineProvider {
  readonly name = 'recording-reboot-fake';
  readonly actions: ReadonlySet<ProviderAction> = new Set<ProviderAction>(['HardReboot']);
  readonly requests: ActionRequest[] = [];
  readonly fenceQueries: FenceQuery[] = [];
  private readonly done = new Map<string, ProviderOutcome>();
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly kubelet: FakeKubelet) {}

  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push({ ...req });
    const prior = this.done.get(req.actionId);
    if (prior !== undefined) return prior;
    const r: ProviderOutcome = { kind: 'Accepted', message: `${req.action} accepted by the fake` };
    this.done.set(req.actionId, r);
    this.pending.push(this.kubelet.reboot(1500));
    return r;
  }

  async fence(q: FenceQuery): Promise<FenceStatus> {
    this.fenceQueries.push({ ...q });
    return { kind: 'NotFenced', reason: 'the fake does not report power state' };
  }

  settle(): Promise<void[]> {
    return Promise.all(this.pending);
  }
}

const stateOf = repairStateOf;

describe('Command site step in the standalone controller', () => {
  it('the command exits 1: the attempt fails (Event with the status and stderr) and the ladder escalates to the next step', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('cmd');
    const name = env.unique('cmd-node');
    const runs = join(dir, 'runs');
    const prog = join(dir, 'replace-node.sh');
    writeFileSync(
      prog,
      `#!/bin/sh
echo "$NODEREPAIR_NODE $NODEREPAIR_PROVIDER_ID $NODEREPAIR_ACTION $NODEREPAIR_ACTION_ID replay=$NODEREPAIR_REPLAY" >> ${runs}
echo "inventory API refused token $SITE_API_TOKEN: no spare machine in rack 4" >&2
exit 1
`,
      { mode: 0o755 },
    );
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const policy = resolveRepairPolicy({
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '2s' }],
      minHealthyPeriod: '3s',
      retryBackoff: '1s',
      ladder: [
        // The site's token is handed over by name (the program gets no other controller variable).
        {
          action: 'Command',
          command: [prog, '--rack', '4'],
          commandTimeout: '30s',
          timeout: '5m',
          env: ['SITE_API_TOKEN'],
        },
        { action: 'HardReboot', timeout: '60s' },
      ],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
      drain: { timeout: '30s', outOfServiceAfter: '2s' },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    const next = new RecordingRebootProviderFake(kubelet);
    const provider = withSiteSteps(next, policy.right.ladder, {
      env: { PATH: process.env['PATH'], SITE_API_TOKEN: 'sk-live-0123456789' },
    });
    const ar = startAutoRepair({
      name: 'command-step-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
    });
    try {
      kubelet.stopHeartbeats(); // -> Ready=Unknown through the node lifecycle controller
      await waitFor(
        'the escalation to HardReboot',
        async () => (next.requests.length > 0 ? true : undefined),
        90_000,
      );
      const done = await waitFor(
        'the repair succeeded on the second step',
        async () => {
          const s = await stateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? s
            : undefined;
        },
        90_000,
      );
      expect(done.lastRemediation?.step).toBe(1);

      // The program ran exactly once, for the Command's first (only) attempt, with the node's
      // identity; the wrapped provider got only the HardReboot.
      const lines = readFileSync(runs, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^${name} test:///${name} Command ${name}/\\d+/Command-1 replay=0$`),
      );
      expect(next.requests.map((r) => r.action)).toEqual(['HardReboot']);
      expect(next.requests[0]?.actionId).toMatch(new RegExp(`^${name}/\\d+/HardReboot-1$`));

      const events = (
        await client.list<KubeEvent>(EventResource, { namespace: 'default' })
      ).items.filter((e) => e.regarding?.name === name);
      const failed = events.find((e) => e.reason === 'RemediationFailed' && e.action === 'Command');
      expect(failed?.note).toContain(
        `${prog} exited 1: inventory API refused token ***: no spare machine in rack 4`,
      );
      expect(failed?.note).not.toContain('sk-live-0123456789');
      expect(failed?.note).not.toContain('--rack');
      expect(events.map((e) => e.reason)).toContain('RepairSucceeded');
      // A site step never fences: the Command was never asked about, no taint was ever added.
      expect(next.fenceQueries.map((q) => q.action)).not.toContain('Command');
      expect(events.map((e) => e.reason)).not.toContain('Fenced');
      const after = await core.readNode({ name });
      expect((after.spec?.taints ?? []).map((t) => t.key)).not.toContain(OUT_OF_SERVICE);
      expect(after.spec?.unschedulable ?? false).toBe(false);
    } finally {
      await ar.stop();
      await next.settle();
      await kubelet.stop();
    }
  });
});
