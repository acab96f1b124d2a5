// The OpenStackRemediation controller end to end on a real kube-apiserver with Cluster API's
// and CAPO's CRDs, a FAKE Keystone + Nova and a fake kubelet: the happy path and a retry.
import { useControlPlane } from '@noderepair/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventResource, type KubeEvent } from '@noderepair/core/kube';
import { FAKE_DEFAULTS } from '@noderepair/openstack/testing';
import {
  buildWorld,
  installAllCRDs,
  phaseIs,
  readyStatus,
  startController,
  until,
} from './support/remediation-env.js';

const env = useControlPlane();

describe('OpenStackRemediation controller: reboot', () => {
  beforeAll(async () => {
    await installAllCRDs(env.kubeConfig);
  }, 120_000);

  it('drains, soft-reboots once, waits for the node and succeeds, uncordoning it', async () => {
    const ns = await env.namespace('osr-ok');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [
        { type: 'SoftReboot', timeoutSeconds: 60, retries: 0 },
        { type: 'HardReboot', timeoutSeconds: 60 },
      ],
      drain: { enabled: true, timeoutSeconds: 10 },
      minHealthySeconds: 2,
    });
    const ctl = startController(env.kubeConfig, ns);
    try {
      w.kubelet.stopHeartbeats();
      await until(
        'Ready=Unknown from the node lifecycle controller',
        async () => (await readyStatus(w)) === 'Unknown',
        30_000,
      );
      const created = await w.createRemediation();
      expect(created.metadata?.ownerReferences?.[0]?.kind).toBe('Machine');

      await until(
        'one SOFT reboot at the fake',
        async () => w.fake.rebootCount(w.serverId, 'SOFT') === 1,
      );
      expect((await w.node()).spec?.unschedulable).toBe(true);
      const during = await until('phase Waiting', () => phaseIs(w, 'Waiting'));
      expect(during.metadata?.finalizers).toContain('remediation.noderepair.dev/cleanup');
      expect(during.status?.serverID).toBe(w.serverId);
      expect(during.status?.history).toEqual([
        expect.objectContaining({ step: 0, type: 'SoftReboot', attempt: 1, result: 'InProgress' }),
      ]);
      // The boot ID before the reboot is a status field (not part of a message), and Nova's
      // acceptance is recorded as the completion the step timeout counts from.
      const bootBefore = (await w.node()).status?.nodeInfo?.bootID;
      expect(bootBefore).toEqual(expect.any(String));
      expect(during.status?.bootID).toBe(bootBefore);
      expect(during.status?.history?.[0]?.message).not.toContain(bootBefore);
      expect(Date.parse(during.status?.history?.[0]?.acceptedTime ?? '')).toBeGreaterThanOrEqual(
        Date.parse(during.status?.history?.[0]?.startTime ?? ''),
      );

      await w.kubelet.reboot(1000);
      const done = await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(done.status?.history?.[0]).toMatchObject({
        result: 'Succeeded',
        completionTime: expect.any(String),
      });
      expect(done.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Remediated', status: 'True' }),
      );
      // Back = a boot ID other than status.bootID (the status keeps the one from before).
      expect((await w.node()).status?.nodeInfo?.bootID).not.toBe(bootBefore);
      expect(done.status?.bootID).toBe(bootBefore);
      expect(done.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'NodeRecovered', status: 'True' }),
      );
      expect((await w.node()).spec?.unschedulable).not.toBe(true);
      expect(w.fake.rebootCount(w.serverId)).toBe(1);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(0);
      expect(ctl.metrics.actions.value({ type: 'SoftReboot', result: 'Succeeded' })).toBe(1);
      expect(ctl.metrics.outcomes.value({ result: 'Succeeded' })).toBe(1);

      // Events tell the story; neither they nor any log line carry a credential.
      const events = (await w.client.list<KubeEvent>(EventResource, { namespace: ns })).items;
      expect(events.map((e) => e.reason)).toEqual(
        expect.arrayContaining([
          'Draining',
          'RemediationStarted',
          'NodeRecovered',
          'RemediationSucceeded',
        ]),
      );
      const text = [...ctl.logs, ...events.map((e) => JSON.stringify(e))].join('\n');
      expect(ctl.logs.some((l) => l.includes('server action'))).toBe(true);
      expect(text).not.toContain(FAKE_DEFAULTS.user.password);
      expect(text).not.toContain(FAKE_DEFAULTS.applicationCredential.secret);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 120_000);

  it('retries the step after a timeout, then succeeds', async () => {
    const ns = await env.namespace('osr-retry');
    const w = await buildWorld(env.kubeConfig, ns, env.unique, {
      steps: [{ type: 'SoftReboot', timeoutSeconds: 30, retries: 1 }],
      drain: { enabled: false },
      minHealthySeconds: 2,
    });
    w.kubelet.stopHeartbeats();
    const ctl = startController(env.kubeConfig, ns);
    try {
      await w.createRemediation();
      await until('first SOFT reboot', async () => w.fake.rebootCount(w.serverId, 'SOFT') === 1);
      // The node does not come back: after timeoutSeconds the step is tried again.
      const retried = await until(
        'second SOFT reboot',
        async () => (w.fake.rebootCount(w.serverId, 'SOFT') === 2 ? w.osr() : undefined),
        60_000,
      );
      expect(retried?.status?.retryCount).toBe(1);
      expect(retried?.status?.history?.[0]).toMatchObject({ attempt: 1, result: 'TimedOut' });
      await w.kubelet.reboot(500);
      const done = await until('phase Succeeded', () => phaseIs(w, 'Succeeded'), 30_000);
      expect(done.status?.history?.map((a) => [a.attempt, a.result])).toEqual([
        [1, 'TimedOut'],
        [2, 'Succeeded'],
      ]);
      expect(w.fake.rebootCount(w.serverId)).toBe(2);
    } finally {
      await ctl.stop();
      await w.close();
    }
  }, 150_000);
});
