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
