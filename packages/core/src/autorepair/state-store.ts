// Where the repair state lives. In the cluster: one annotation on the Node, written with the
// Node's resourceVersion as an optimistic lock, BEFORE any action runs (the restart
// contract in docs/health.md). In dry-run mode nothing may change in the cluster, so the
// state lives in memory and is lost on restart (a dry run repairs nothing, so nothing is
// at stake).
import * as either from 'fp-ts/lib/Either.js';
import type { KubeClient } from '../kube/client.js';
import { NodeResource } from '../kube/resource.js';
import type { KubeNode } from '../kube/types.js';
import type { NodeSnapshot } from '../health/node.js';
import {
  parseRepairState,
  readStateAnnotation,
  serializeRepairState,
  type RepairState,
} from '../health/state.js';

/** Where each Node's repair state is persisted and read back. */
export interface StateStore {
  /**
   * `annotation` on the Node in the cluster, or `memory` (dry-run: lost on restart, nothing waits
   * for the cache).
   */
  readonly kind: 'annotation' | 'memory';
  /** The persisted state of a node; Left names what is wrong with a corrupt record. */
  read(node: NodeSnapshot): either.Either<string, RepairState | undefined>;
  /**
   * Persists the state. `resourceVersion` is the version the decision was made on: if the
   * Node changed since, the write fails with a ConflictError and the caller decides again.
   * Returns the Node's new resourceVersion (undefined in memory).
   */
  write(
    name: string,
    state: RepairState,
    resourceVersion: string | undefined,
  ): Promise<string | undefined>;
  /** The stored text, to compare with a new state before writing. */
  stored(node: NodeSnapshot): string | undefined;
  /** The serialized value the cache must show before this write counts as observed. */
  encode(state: RepairState): string;
  /** Drops what is kept about a deleted node (the annotation went with the Node). */
  forget(name: string): void;
}

/** True when writing `next` would change what is stored (pure). */
export function stateChanged(stored: string | undefined, next: RepairState): boolean {
  return stored !== serializeRepairState(next);
}

/**
 * A fresh, healthy node with nothing to remember does not need an annotation: healthy
 * clusters stay untouched (pure).
 */
export function worthPersisting(stored: string | undefined, next: RepairState): boolean {
  if (stored !== undefined) return stateChanged(stored, next);
  return !(
    next.phase === 'Healthy' &&
    next.episodes.length === 0 &&
    next.remediation === undefined &&
    next.lastRemediation === undefined &&
    next.handledTrigger === undefined
  );
}

/**
 * The state as an annotation on the Node, written by a merge patch with the Node's resourceVersion
 * as an optimistic lock.
 */
export class AnnotationStateStore implements StateStore {
  /** Always `annotation`. */
  readonly kind = 'annotation';
  /** `key` is the annotation holding the state (the policy's annotations.state). */
  constructor(
    private readonly client: KubeClient,
    private readonly key: string,
  ) {}

  /**
   * The state in the Node's annotation; Left names what is wrong with a corrupt one, Right
   * undefined when there is none.
   */
  read(node: NodeSnapshot): either.Either<string, RepairState | undefined> {
    return readStateAnnotation(node, this.key);
  }

  /** The annotation's raw text, undefined when absent. */
  stored(node: NodeSnapshot): string | undefined {
    return node.metadata?.annotations?.[this.key];
  }

  /** Nothing to drop: the annotation went with the Node. */
  forget(): void {
    // The annotation was deleted with the Node.
  }

  /** The serialized state, as the annotation will hold it. */
  encode(state: RepairState): string {
    return serializeRepairState(state);
  }

  /**
   * Patches the annotation; throws ConflictError when the Node changed since `resourceVersion`.
   * Returns the Node's new resourceVersion.
   */
  async write(
    name: string,
    state: RepairState,
    resourceVersion: string | undefined,
  ): Promise<string | undefined> {
    const updated = await this.client.patch<KubeNode>(NodeResource, name, {
      type: 'merge',
      body: { metadata: { annotations: { [this.key]: serializeRepairState(state) } } },
      resourceVersion,
    });
    return updated.metadata?.resourceVersion;
  }
}

/**
 * The state in memory, for dry runs: nothing is written to the cluster and a restart forgets it.
 */
export class MemoryStateStore implements StateStore {
  /** Always `memory`. */
  readonly kind = 'memory';
  private readonly states = new Map<string, string>();

  /** The state kept for the Node's name; Left when it cannot be parsed. */
  read(node: NodeSnapshot): either.Either<string, RepairState | undefined> {
    return parseRepairState(this.states.get(node.metadata?.name ?? ''));
  }

  /** The serialized state kept for the Node's name. */
  stored(node: NodeSnapshot): string | undefined {
    return this.states.get(node.metadata?.name ?? '');
  }

  /** The serialized state, as it is kept. */
  encode(state: RepairState): string {
    return serializeRepairState(state);
  }

  /** Keeps the state; never conflicts and returns undefined (no resourceVersion). */
  async write(name: string, state: RepairState): Promise<string | undefined> {
    this.states.set(name, serializeRepairState(state));
    return undefined;
  }

  /** Drops the state kept for a deleted node. */
  forget(name: string): void {
    this.states.delete(name);
  }
}
