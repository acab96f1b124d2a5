// The log of one repair reads as its story (issue 47): on a real kube-apiserver with the node
// lifecycle controller (envtest), a node whose kubelet stops is repaired to success, and the
// controller's JSON lines at info say each step in order, with the node, the action id where
// there is one, and the reason. The doubles: the fake kubelet and the fake reboot provider.
import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { startFakeKubelet, waitFor } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { createKubeClient } from '../kube/client-node/index.js';
import { resolveRepairPolicy } from '../health/policy.js';
import { createRuntimeLogger } from '../runtime/manager/logging.js';
import { repairStateOf, startAutoRepair } from '../../test/autorepair-harness.js';
import { KubeletRebootProviderFake } from '../../test/kubelet-reboot-fake.js';

const env = useControlPlane();
const SCOPE = 'test.noderepair.io/story-scope';

type Line = Record<string, unknown> & { level: number; msg: string; time: string };

describe('the log of a repair', () => {
  it('tells the story at info: started (cause), cordoned, drained, action sent and accepted (action id), verifying, uncordoned, succeeded', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const scope = env.unique('story');
    const name = env.unique('story-node');
    const lines: Line[] = [];
    const logger = createRuntimeLogger({
      name: 'noderepair',
      level: 'info',
      destination: {
        write: (s: string) => {
          for (const l of s.split('\n')) if (l !== '') lines.push(JSON.parse(l) as Line);
        },
      },
    });
    const kubelet = await startFakeKubelet(kc, {
      name,
      labels: { [SCOPE]: scope },
      heartbeatSeconds: 1,
      providerID: `test:///${name}`,
    });
    const provider = new KubeletRebootProviderFake(kubelet);
    const policy = resolveRepairPolicy({
      unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '3s' }],
      minHealthyPeriod: '3s',
      ladder: [{ action: 'SoftReboot', timeout: '40s', attempts: 1 }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 1, recheckInterval: '1s' },
      drain: { timeout: '30s' },
    });
    if (either.isLeft(policy)) throw new Error(policy.left);
    const ctl = startAutoRepair({
      name: 'story-int',
      client,
      policy: policy.right,
      provider,
      scopeLabel: SCOPE,
      scope,
      logger,
    });
    try {
      kubelet.stopHeartbeats(); // -> Ready=Unknown from the node lifecycle controller
      await waitFor(
        'repair success',
        async () => {
          const s = await repairStateOf(core, name);
          return s?.phase === 'Healthy' && s.lastRemediation?.result === 'Succeeded'
            ? s
            : undefined;
        },
        90_000,
      );
    } finally {
      await ctl.stop();
      await provider.settle();
      await kubelet.stop();
      await core.deleteNode({ name }).catch(() => undefined);
    }
    const actionId = provider.requests[0]?.actionId;
    expect(actionId).toMatch(new RegExp(`^${name}/\\d+/SoftReboot-1$`));
    const story = lines.filter((l) => l['node'] === name);
    // What an operator reads: the example in docs/autorepair.md is this run's lines.
    if (process.env['STORY_LOG'] !== undefined)
      console.log(story.map((l) => JSON.stringify(l)).join('\n'));
    const steps = [
      'repair started',
      'cordoned',
      'drain finished',
      'action sent',
      'action accepted',
      'node Ready again: verifying',
      'uncordoned',
      'repair succeeded',
    ];
    const at = steps.map((m) => story.findIndex((l) => l.msg === m));
    expect(steps.filter((_, i) => at[i] === -1)).toEqual([]);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    const line = (m: string) => story[at[steps.indexOf(m)]!]!;
    // Every story line is at info, with an ISO time and the node; the repair's lines carry
    // the remediation and (from the action on) the action id.
    for (const i of at) {
      expect(story[i]).toMatchObject({ level: 30, node: name });
      expect(story[i]?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(line('repair started')).toMatchObject({
      cause: 'KubeletUnreachable',
      action: 'SoftReboot',
      actionId,
      reason: expect.stringMatching(/KubeletUnreachable/) as unknown,
    });
    for (const m of ['action sent', 'action accepted', 'node Ready again: verifying'])
      expect(line(m)).toMatchObject({ actionId, action: 'SoftReboot' });
    expect(line('action accepted')).toMatchObject({ result: 'Accepted' });
    expect(line('repair succeeded')).toMatchObject({
      actionId,
      remediationId: line('repair started')['remediationId'],
      reason: expect.stringMatching(/succeeded/) as unknown,
    });
    expect(line('drain finished')).toMatchObject({ outcome: 'Drained' });
    for (const m of ['cordoned', 'uncordoned'])
      expect(line(m)['reason']).toEqual(expect.any(String));
    // Nothing about this healthy repair at warn or above.
    expect(story.filter((l) => l.level >= 40)).toEqual([]);
  });
});
