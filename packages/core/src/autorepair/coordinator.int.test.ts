// The coordinator's disruption lease around a repair in flight, on a real kube-apiserver
// (envtest): a lease another holder took over while our repair ran stops the repair's
// actions, says who holds it, and is left to its holder. The only double: the Event sink.
import { CoreV1Api } from '@kubernetes/client-node';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { either } from 'fp-ts';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RepairDecision } from '../health/decide.js';
import type { LeaseSnapshot } from '../health/actors.js';
import { microTime } from '../health/disruption-lease.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type { RepairState } from '../health/state.js';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeObject } from '../kube/object.js';
import { LeaseResource, NodeResource } from '../kube/resource.js';
import type { KubeNode } from '../kube/types.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger, type RuntimeLogger } from '../runtime/logger.js';
import { Coordinator, LeaseHeldError, LeaseTakenOverError } from './coordinator.js';
import { AutoRepairMetrics } from './metrics.js';
import { installLeaseHolder, LegacyDisruptionLeaseHolder } from './lease-keeper.js';
import type { FleetMember } from '../health/fleet.js';

const env = useControlPlane();
const NS = 'medik8s-leases';

/** A repair in flight on `name`: remediation r1 started earlier, still Remediating. */
function inFlight(name: string): { decision: RepairDecision; previous: RepairState } {
  const remediation = { id: 'r1', step: 0, attempt: 1 };
  const state = { phase: 'Remediating', remediation } as unknown as RepairState;
  const decision = {
    node: name,
    phase: 'Remediating',
    previousPhase: 'Remediating',
    nextState: state,
    actions: [],
    reason: 'waiting for the reboot',
  } as unknown as RepairDecision;
  return { decision, previous: state };
}

describe('Coordinator: our disruption lease during a repair (real apiserver)', () => {
  it('a lease another holder took over stops the repair before its actions: Warning Event and log name the holder, the lease stays theirs', async () => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const p = resolveRepairPolicy({});
    if (either.isLeft(p)) throw new Error(p.left);
    expect(p.right.coordination.medik8sLease.namespace).toBe(NS);
    const name = env.unique('taken-over');
    await core.createNode({ body: { metadata: { name } } });
    await core.createNamespace({ body: { metadata: { name: NS } } }).catch((e: unknown) => {
      if ((e as { code?: number }).code !== 409) throw e;
    });
    // Ours had lapsed; NodeHealthCheck took it and keeps it alive.
    await client.create(
      LeaseResource,
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `node-${name}`, namespace: NS },
        spec: {
          holderIdentity: 'NodeHealthCheck-nhc-workers',
          leaseDurationSeconds: 3600,
          acquireTime: microTime(Date.now()),
          renewTime: microTime(Date.now()),
          leaseTransitions: 1,
        },
      } as KubeObject,
      { namespace: NS },
    );
    const leaseBefore = await client.get<KubeObject & LeaseSnapshot>(
      LeaseResource,
      `node-${name}`,
      { namespace: NS },
    );
    const events: EventInput[] = [];
    const warnings: { fields: object; msg: string | undefined }[] = [];
    const log: RuntimeLogger = {
      ...silentLogger,
      warn: (fields, msg) => warnings.push({ fields, msg }),
      child: () => log,
    };
    const c = new Coordinator({
      client,
      policy: p.right,
      metrics: new AutoRepairMetrics(new Registry()),
      log,
      now: () => Date.now(),
      recordEvent: async (_node, ev) => {
        events.push(ev);
      },
    });
    try {
      const node = await client.get<KubeNode>(NodeResource, name);
      const { decision, previous } = inFlight(name);
      const err = await c
        .afterDecision(name, node, decision, previous, new AbortController().signal)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // Thrown: the caller's actions for this decision (cordon, drain, reboot, taint) never run.
      expect(err).toBeInstanceOf(LeaseTakenOverError);
      expect(err).toBeInstanceOf(LeaseHeldError);
      expect((err as LeaseTakenOverError).holder).toBe('NodeHealthCheck-nhc-workers');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'Warning',
        reason: 'DisruptionLeaseHeld',
        action: 'Hold',
      });
      expect(events[0]?.note).toMatch(
        new RegExp(
          `disruption lease ${NS}/node-${name} was taken over by NodeHealthCheck-nhc-workers until .* we stop acting on the node; the repair waits, no attempt used`,
        ),
      );
      expect(warnings.map((w) => w.fields)).toContainEqual(
        expect.objectContaining({ node: name, holder: 'NodeHealthCheck-nhc-workers' }),
      );
      // Not taken back while their lease is live: untouched.
      const leaseAfter = await client.get<KubeObject & LeaseSnapshot>(
        LeaseResource,
        `node-${name}`,
        { namespace: NS },
      );
      expect(leaseAfter.spec?.holderIdentity).toBe('NodeHealthCheck-nhc-workers');
      expect(leaseAfter.metadata?.resourceVersion).toBe(leaseBefore.metadata?.resourceVersion);

      // They release it: the next pass takes it for us again and the repair goes on.
      await client.delete(LeaseResource, `node-${name}`, { namespace: NS });
      events.length = 0;
      await c.afterDecision(name, node, decision, previous, new AbortController().signal);
      expect(events).toEqual([]);
      const ours = await client.get<KubeObject & LeaseSnapshot>(LeaseResource, `node-${name}`, {
        namespace: NS,
      });
      expect(ours.spec?.holderIdentity).toBe('noderepair');
    } finally {
      await client.delete(LeaseResource, `node-${name}`, { namespace: NS }).catch(() => undefined);
      await core.deleteNode({ name }).catch(() => undefined);
    }
  });
});

/** A repair that starts now on `name` (remediation `id`, nothing before it). */
function starting(name: string, id: string): RepairDecision {
  return {
    node: name,
    phase: 'Remediating',
    previousPhase: 'Unhealthy',
    nextState: { phase: 'Remediating', remediation: { id, step: 0, attempt: 1 } },
    actions: [],
    reason: 'repair starts',
  } as unknown as RepairDecision;
}

describe('Coordinator: two installs on overlapping nodes (real apiserver)', () => {
  const setup = async (prefix: string) => {
    const kc = env.kubeConfig;
    const core = kc.makeApiClient(CoreV1Api);
    const client = createKubeClient(kc);
    const p = resolveRepairPolicy({});
    if (either.isLeft(p)) throw new Error(p.left);
    const name = env.unique(prefix);
    await core.createNode({ body: { metadata: { name } } });
    await core.createNamespace({ body: { metadata: { name: NS } } }).catch((e: unknown) => {
      if ((e as { code?: number }).code !== 409) throw e;
    });
    const node = await client.get<KubeNode>(NodeResource, name);
    const coordinator = (leaseHolder: string) =>
      new Coordinator({
        client,
        policy: p.right,
        metrics: new AutoRepairMetrics(new Registry()),
        log: silentLogger,
        now: () => Date.now(),
        recordEvent: async () => undefined,
        leaseHolder,
      });
    const holder = async () =>
      (
        await client.get<KubeObject & LeaseSnapshot>(LeaseResource, `node-${name}`, {
          namespace: NS,
        })
      ).spec?.holderIdentity;
    const cleanup = async () => {
      await client.delete(LeaseResource, `node-${name}`, { namespace: NS }).catch(() => undefined);
      await core.deleteNode({ name }).catch(() => undefined);
    };
    return { client, name, node, coordinator, holder, cleanup };
  };
  const signal = () => new AbortController().signal;

  it('never take each other’s live lease: the second install waits, and its fleet pass sees a hold', async () => {
    const s = await setup('two-installs');
    const a = s.coordinator(installLeaseHolder('team-a', 'noderepair-autorepair'));
    const b = s.coordinator(installLeaseHolder('team-b', 'noderepair-autorepair'));
    try {
      expect(
        await a.takeForStart(s.name, s.node, starting(s.name, 'ra'), undefined, signal()),
      ).toBe(true);
      expect(await s.holder()).toBe('noderepair/team-a/noderepair-autorepair');
      // B wants to start its own repair of the same node: A's lease is A's.
      const err = await b
        .takeForStart(s.name, s.node, starting(s.name, 'rb'), undefined, signal())
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(LeaseHeldError);
      expect((err as Error).message).toContain('held by noderepair/team-a/noderepair-autorepair');
      // B's fleet pass counts A's lease as another actor's hold on the node.
      const withHolds = await b.fleetHolds(signal());
      const member = withHolds({
        obs: { nodeName: s.name, node: s.node },
      } as unknown as FleetMember);
      expect(member.obs.actorHolds).toEqual([
        expect.objectContaining({ actor: 'Medik8sLease', disrupting: true }),
      ]);
      // And B, believing a repair of its own in flight there, stops before acting.
      const { decision, previous } = inFlight(s.name);
      await expect(
        b.afterDecision(s.name, s.node, decision, previous, signal()),
      ).rejects.toBeInstanceOf(LeaseTakenOverError);
      expect(await s.holder()).toBe('noderepair/team-a/noderepair-autorepair');
    } finally {
      await s.cleanup();
    }
  });

  it('the legacy holder `noderepair` is ours only for a repair our own state says is in flight', async () => {
    const s = await setup('legacy-holder');
    try {
      // An install before its upgrade took the lease for its repair in flight.
      await s.client.create(
        LeaseResource,
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: `node-${s.name}`, namespace: NS },
          spec: {
            holderIdentity: LegacyDisruptionLeaseHolder,
            leaseDurationSeconds: 3600,
            acquireTime: microTime(Date.now()),
            renewTime: microTime(Date.now()),
            leaseTransitions: 0,
          },
        } as KubeObject,
        { namespace: NS },
      );
      // Another install starting a repair there does not take it.
      const other = s.coordinator(installLeaseHolder('team-b', 'noderepair-autorepair'));
      await expect(
        other.takeForStart(s.name, s.node, starting(s.name, 'rb'), undefined, signal()),
      ).rejects.toBeInstanceOf(LeaseHeldError);
      const otherHolds = (await other.fleetHolds(signal()))({
        obs: { nodeName: s.name, node: s.node },
      } as unknown as FleetMember);
      expect(otherHolds.obs.actorHolds).toHaveLength(1);
      // The upgraded install, whose state annotation says its repair is in flight, adopts it
      // (no hold, no wait for the hour) and writes its own identity.
      const ours = s.coordinator(installLeaseHolder('team-a', 'noderepair-autorepair'));
      const { decision, previous } = inFlight(s.name);
      const mine = (await ours.fleetHolds(signal()))({
        obs: { nodeName: s.name, node: s.node },
        state: previous,
      } as unknown as FleetMember);
      expect(mine.obs.actorHolds).toBeUndefined();
      await ours.afterDecision(s.name, s.node, decision, previous, signal());
      expect(await s.holder()).toBe('noderepair/team-a/noderepair-autorepair');
    } finally {
      await s.cleanup();
    }
  });
});
