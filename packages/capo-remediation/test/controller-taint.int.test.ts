// Undo only what we did (issue 42), on a real kube-apiserver (envtest) with the FAKE Keystone +
// Nova: an out-of-service taint someone else put on the Node (an operator who fenced the
// machine by hand, another tool) is recorded as theirs (OutOfServiceTaint=AlreadyTainted) and
// stays when the remediation releases the Node; the taint the remediation added itself is
// removed (controller-outage.int.test.ts).
import { useControlPlane } from '@noderepair/envtest/vitest';
import { isConflict, NodeResource, type KubeNode } from '@noderepair/core/kube';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  readyStatus,
  startController,
  until,
  type Osr,
} from './support/remediation-env.js';

const env = useControlPlane();
const OOS = 'node.kubernetes.io/out-of-service';
const cond = (o: Osr | undefined, type: string) =>
  o?.status?.conditions?.find((c) => c.type === type);

describe('OpenStackRemediation controller: the out-of-service taint is removed only when ours', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  for (const operatorCordoned of [false, true])
    it(`an operator's out-of-service taint stays after the remediation succeeds (node ${operatorCordoned ? 'cordoned by the operator too' : 'cordoned by us'})`, async () => {
      const ns = await env.namespace(operatorCordoned ? 'osr-theirs-c' : 'osr-theirs');
      const w = await buildWorld(env.kubeConfig, ns, env.unique, {
        steps: [{ type: 'HardReboot', timeoutSeconds: 90, retries: 0 }],
        drain: { enabled: true, timeoutSeconds: 4, outOfServiceTaint: true },
        minHealthySeconds: 2,
      });
      w.kubelet.stopHeartbeats();
      const ctl = startController(env.kubeConfig, ns);
      try {
        await until('Ready=Unknown', async () => (await readyStatus(w)) === 'Unknown', 30_000);
        // The operator fenced the machine by hand and said so on the Node: read, modify, write
        // with the read's resourceVersion, again on a 409 (kube-controller-manager's node
        // lifecycle controller taints the unreachable Node in the same seconds).
        const theirs = { key: OOS, value: 'operator-fenced', effect: 'NoExecute' };
        for (let tries = 1; ; tries++) {
          const before = await w.node();
          try {
            await w.nodeClient.patch(
              NodeResource,
              w.nodeName,
              {
                type: 'merge',
                body: {
                  spec: {
                    taints: [...(before.spec?.taints ?? []), theirs],
                    ...(operatorCordoned ? { unschedulable: true } : {}),
                  },
                },
                resourceVersion: before.metadata?.resourceVersion,
              },
              {},
            );
            break;
          } catch (e) {
            if (!isConflict(e) || tries >= 10) throw e;
          }
        }
        await w.createRemediation();
        const fenced = await until(
          'Fenced=True',
          async () => {
            const o = await w.osr();
            return cond(o, 'Fenced')?.status === 'True' ? o : undefined;
          },
          40_000,
        );
        expect(cond(fenced, 'OutOfServiceTaint')).toMatchObject({
          status: 'True',
          reason: 'AlreadyTainted',
        });
        await w.kubelet.reboot(500);
        await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 40_000);
        const after: KubeNode = await w.node();
        // Released: uncordoned only if we cordoned; the operator's taint exactly as it was.
        expect(after.spec?.unschedulable ?? false).toBe(operatorCordoned);
        expect(after.spec?.taints?.filter((t) => t.key === OOS)).toEqual([
          expect.objectContaining(theirs),
        ]);
        expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(1);
      } finally {
        await ctl.stop();
        await w.close();
      }
    }, 150_000);
});
