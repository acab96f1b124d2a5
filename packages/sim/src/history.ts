// The recorded history of one run: every fact the invariants judge, in virtual-time order.
// Written by the simulated world (SimKube, SimCloud, the scheduler), never by the controller
// under test; pure data, so invariants are plain functions over it and a run prints as text.

/** Who changed a Node's spec: the controller under test, a person, or an operator's tool. */
export type Actor = 'controller' | 'person' | 'operator';

/** A provider answer as the controller received it (a throw is `Threw`). */
export type CallAnswer = 'Accepted' | 'Rejected' | 'Unavailable' | 'Threw';

/** One fact of the run. `t` is virtual ms since the start of the run. */
export type HistoryEntry =
  /** A fault from the schedule began or ended (kubelet, outage, person...). */
  | { t: number; kind: 'fault'; fault: string; target?: string; detail?: string }
  /** The provider world carried out a power action (its own log, Nova's instance actions). */
  | {
      t: number;
      kind: 'executed';
      actionId: string;
      action: string;
      machine: string;
      by: 'controller' | 'person';
      /** The machine's power state before it. */
      from: 'On' | 'Off';
      /** Nova accepted it and the instance action ended in error: nothing happened. */
      failed?: boolean;
    }
  /** An execute() call the controller made and the answer it got. */
  | {
      t: number;
      kind: 'call';
      actionId: string;
      action: string;
      machine: string;
      replay: boolean;
      answer: CallAnswer;
    }
  /** The controller asked the provider for a machine's power state, and what it was told. */
  | { t: number; kind: 'power'; machine: string; answer: string }
  /** A repair-state write the apiserver accepted (the annotation, parsed). */
  | {
      t: number;
      kind: 'state';
      node: string;
      phase: string;
      remediationId?: string;
      step?: number;
      attempt?: number;
      actionId?: string;
      /** The intent's action (SoftReboot, HardReboot, Replace ...). */
      action?: string;
      completed?: boolean;
      result?: string;
      /** The apiserver or the provider was in an outage when the write was accepted. */
      during?: string;
    }
  /**
   * node.kubernetes.io/out-of-service appeared on a Node. `fenced` is the world's truth at that
   * moment: the machine is off, or was power-cycled since its Node went NotReady.
   */
  | { t: number; kind: 'taint'; node: string; fenced: boolean; why: string; by: Actor }
  /**
   * A cordon (`mark=cordon`) or a taint (`mark=<taint key>`) appeared on or left a Node's spec,
   * and who wrote it: the world knows which of its actors writes; every other write is the
   * controller's.
   */
  | {
      t: number;
      kind: 'mark';
      node: string;
      mark: string;
      change: 'added' | 'removed';
      by: Actor;
      /** Removed because the Node object was deleted (its marks with it). */
      withNode?: boolean;
    }
  /** A condition node-problem-detector posts changed (POLICY=npd: KernelDeadlock). */
  | { t: number; kind: 'condition'; node: string; type: string; status: string; reason: string }
  /** A Node's Ready condition changed (the kubelet's post, or the lifecycle controller's). */
  | { t: number; kind: 'ready'; node: string; ready: boolean }
  /** The controller asked the Eviction API to evict a pod bound to the node (a drain). */
  | { t: number; kind: 'evict'; node: string; pod: string }
  /**
   * A Node object appeared under its name or left it (a kubelet registering, someone deleting
   * it): its identity, the uid and the machine its providerID names. Every entry after it
   * about this name (a state write, a mark, a taint, an eviction) is about this object.
   */
  | {
      t: number;
      kind: 'node';
      node: string;
      change: 'created' | 'deleted';
      uid: string;
      providerID: string;
    }
  /**
   * A Node object was deleted by an actor other than the world's own (the controller, e.g. the
   * DeleteNode step after a Replace): recorded just before its `node` entry, with the world's
   * truth at that moment (`fenced`: the machine is off or deleted, or was power-cycled since the
   * Node went NotReady; `why` says which), the same truth as the out-of-service taint's.
   */
  | {
      t: number;
      kind: 'node-delete';
      node: string;
      uid: string;
      providerID: string;
      fenced: boolean;
      why: string;
      by: Actor;
    }
  /**
   * A pod was deleted without its kubelet's confirmation (its containers may still run on the
   * machine): the pod GC under node.kubernetes.io/out-of-service, the pod GC freeing the pods of
   * a deleted Node, or a delete (or eviction) with gracePeriodSeconds 0. `by`: who caused it
   * (whose taint, whose Node deletion, whose delete call); `fenced` and `why` as above.
   */
  | {
      t: number;
      kind: 'force-pod';
      node: string;
      pod: string;
      cause: 'out-of-service' | 'node-deleted' | 'grace-0';
      fenced: boolean;
      why: string;
      by: Actor;
    }
  /**
   * Nova deleted a server (the controller's Replace, once its deletion finished) or a new one
   * was made (the node group's owner recreating the capacity after a Replace).
   */
  | { t: number; kind: 'server'; machine: string; change: 'deleted' | 'created'; by: string }
  /** The run ended here (liveness is judged at this moment). */
  | { t: number; kind: 'end' }
  /** A reconcile ended in an error (thrown to the controller's rate limiter). */
  | { t: number; kind: 'error'; node: string; message: string };

/** The history of one run, appended to as it goes. */
export class History {
  readonly entries: HistoryEntry[] = [];
  constructor(private readonly now: () => number) {}
  /** Appends a fact stamped with the current virtual time. */
  add(e: DistributiveOmit<HistoryEntry, 't'>): void {
    this.entries.push({ t: this.now(), ...e } as HistoryEntry);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** One line per entry, `mm:ss.mmm kind ...`: what the CLI prints and a failing test shows. */
export function formatEntry(e: HistoryEntry): string {
  const m = Math.floor(e.t / 60_000);
  const s = ((e.t % 60_000) / 1000).toFixed(3).padStart(6, '0');
  const { t: _t, kind, ...rest } = e;
  const fields = Object.entries(rest)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return `${String(m).padStart(3, '0')}:${s} ${kind.padEnd(8)} ${fields}`;
}
