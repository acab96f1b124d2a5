// Test doubles of the NodeReconciler's ports, shared by node-reconciler.test.ts and
// node-reconciler-burst.test.ts: an in-memory KubeClient holding Nodes (merge patches,
// resourceVersion preconditions, ConflictError) and a cache that mirrors it as the informer
// would. Time is fixed; the drain has no pods.
import { Registry } from 'prom-client';
import { either } from 'fp-ts';
import type { KubeClient, KubePatch } from '../kube/client.js';
import { ConflictError, NotFoundError } from '../kube/errors.js';
import type { KubeObject } from '../kube/object.js';
import type { ResourceType } from '../kube/resource.js';
import type { KubeNode } from '../kube/types.js';
import { kubeDrainPort } from '../drain/kube-port.js';
import { buildNode } from '../health/builders.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type {
  ActionRequest,
  MachineProvider,
  ProviderAction,
  ProviderOutcome,
} from '../provider/port.js';
import { ProviderActions } from '../provider/port.js';
import { parseRepairState } from '../health/state.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { silentLogger } from '../runtime/logger.js';
import { AutoRepairMetrics } from './metrics.js';
import { NodeReconciler } from './node-reconciler.js';
import { toNodeView, watchedAnnotations, type NodeView } from './node-view.js';
import { AnnotationStateStore } from './state-store.js';
import { ManualClock } from '../runtime/clock.js';

export const STATE = 'noderepair.io/repair-state';
export const t0 = Date.parse('2026-01-01T00:00:00Z');

function merge(
  target: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === 'object' && !Array.isArray(v))
      out[k] = merge((out[k] as Record<string, unknown>) ?? {}, v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

/**
 * TEST DOUBLE: Nodes (and Leases, for the disruption lease) in memory with resourceVersions;
 * enough of KubeClient for the reconciler. Other kinds are not there (404), as in a cluster
 * without kured or the NodeMaintenance CRD.
 */
export class InMemoryNodesForTest {
  private rv = 1;
  readonly nodes = new Map<string, KubeNode>();
  readonly leases = new Map<string, KubeObject>();
  conflictsToInject = 0;
  /** Nodes whose next state write fails with a Conflict (once each). */
  readonly conflictOn = new Set<string>();
  readonly client: KubeClient;
  constructor(private readonly onChange: (n: KubeNode) => void) {
    const unsupported = () => Promise.reject(new Error('not used by the reconciler'));
    this.client = {
      get: async <T extends KubeObject>(rt: ResourceType, name: string) => {
        const n = rt.kind === 'Lease' ? this.leases.get(name) : this.nodes.get(name);
        if (!n)
          throw new NotFoundError({
            kind: 'Status',
            code: 404,
            reason: 'NotFound',
            message: `nodes "${name}" not found`,
          });
        return structuredClone(n) as T;
      },
      list: async <T extends KubeObject>() => ({
        items: [] as T[],
        metadata: { resourceVersion: String(this.rv) },
      }),
      patch: async <T extends KubeObject>(_rt: ResourceType, name: string, p: KubePatch) => {
        const n = this.nodes.get(name);
        if (!n) throw new NotFoundError({ kind: 'Status', code: 404, reason: 'NotFound' });
        const injected = this.conflictOn.delete(name);
        if (
          injected ||
          this.conflictsToInject > 0 ||
          (p.resourceVersion !== undefined && p.resourceVersion !== n.metadata?.resourceVersion)
        ) {
          this.conflictsToInject = Math.max(0, this.conflictsToInject - 1);
          throw new ConflictError({
            kind: 'Status',
            code: 409,
            reason: 'Conflict',
            message: 'the object has been modified',
          });
        }
        if (p.type !== 'merge') throw new Error('only merge patches');
        return this.put(merge(n as Record<string, unknown>, p.body) as KubeNode) as unknown as T;
      },
      watch: () => ({ [Symbol.asyncIterator]: () => ({ next: unsupported }) }),
      create: async <T extends KubeObject>(rt: ResourceType, obj: T) => {
        if (rt.kind !== 'Lease') return unsupported();
        const stored = {
          ...obj,
          metadata: { ...obj.metadata, resourceVersion: String(++this.rv) },
        };
        this.leases.set(obj.metadata!.name!, stored);
        return structuredClone(stored);
      },
      update: unsupported,
      apply: unsupported,
      delete: async (rt: ResourceType, name: string) => {
        if (rt.kind !== 'Lease') return unsupported();
        this.leases.delete(name);
      },
      evict: unsupported,
    } as KubeClient;
  }
  put(n: KubeNode): KubeNode {
    const stored = { ...n, metadata: { ...n.metadata, resourceVersion: String(++this.rv) } };
    this.nodes.set(stored.metadata.name!, stored);
    this.onChange(stored);
    return structuredClone(stored);
  }
}

export function setup(policyDoc: unknown, opts: { wake?: (name: string) => void } = {}) {
  const p = resolveRepairPolicy(policyDoc);
  if (either.isLeft(p)) throw new Error(p.left);
  const policy = p.right;
  const keys = watchedAnnotations(policy);
  const cache = new Map<string, NodeView>();
  // Nodes whose changes the cache does not show (an informer lagging behind the apiserver).
  const lagging = new Set<string>();
  const api = new InMemoryNodesForTest((n) => {
    if (!lagging.has(n.metadata!.name!)) cache.set(n.metadata!.name!, toNodeView(n, keys));
  });
  const calls: { req: ActionRequest; annotationAtCall: string | undefined }[] = [];
  // FAKE MachineProvider: records each call with the state seen at call time; answers `answer`.
  const answer: { outcome: ProviderOutcome } = { outcome: { kind: 'Accepted', message: '' } };
  const provider: MachineProvider = {
    name: 'recording-fake-for-test',
    actions: new Set<ProviderAction>(ProviderActions),
    execute: async (req) => {
      calls.push({
        req,
        annotationAtCall: api.nodes.get(req.node)?.metadata?.annotations?.[STATE],
      });
      return answer.outcome;
    },
    fence: async () => ({ kind: 'NotFenced', reason: 'test' }),
  };
  const events: { node: string; ev: EventInput }[] = [];
  const registry = new Registry();
  const clock = { now: t0 + 20 * 60_000 };
  // Every request the reconciler sends, by verb.
  const requests: string[] = [];
  const counted = new Proxy(api.client, {
    get(target, verb: string) {
      const f = (target as unknown as Record<string, unknown>)[verb];
      if (typeof f !== 'function') return f;
      return (...args: unknown[]) => {
        requests.push(verb);
        return (f as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  let restarts = 0;
  // A new process: the same cluster, a reconciler that remembers nothing.
  const restart = () =>
    new NodeReconciler({
      client: counted,
      cache: { get: (n) => cache.get(n), list: () => [...cache.values()] },
      policy,
      store: new AnnotationStateStore(counted, policy.annotations.state),
      provider,
      // A new process has its own registry; the first one's is `registry`.
      metrics: new AutoRepairMetrics(restarts++ === 0 ? registry : new Registry()),
      log: silentLogger,
      now: () => clock.now,
      drainPort: kubeDrainPort(counted),
      clock: new ManualClock(0, { sleepAdvances: true }),
      recordEvent: async (node, ev) => {
        events.push({ node: node.metadata!.name!, ev });
      },
      ...(opts.wake !== undefined ? { wake: opts.wake } : {}),
    });
  const reconciler = restart();
  const ctx = { signal: new AbortController().signal, log: silentLogger, retries: 0 };
  const addNode = (name: string, ready: 'ready' | 'unknown', zone: string) =>
    api.put({
      apiVersion: 'v1',
      kind: 'Node',
      ...(buildNode({ name, ready, since: t0, labels: { zone } }) as KubeNode),
    });
  const stateOf = (name: string) => {
    const s = parseRepairState(api.nodes.get(name)?.metadata?.annotations?.[STATE]);
    return either.isRight(s) ? s.right : undefined;
  };
  return {
    api,
    cache,
    lagging,
    calls,
    events,
    reconciler,
    ctx,
    addNode,
    stateOf,
    clock,
    requests,
    answer,
    policy,
    registry,
    restart,
  };
}
