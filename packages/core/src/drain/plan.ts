// Drain planning: which pods to evict, which to leave, which need a decision. Pure; the
// rules follow `kubectl drain` (k8s.io/kubectl/pkg/drain filters), applied in its order.
import {
  AnnotationMirrorPod,
  controllerOf,
  podKey,
  podRef,
  type PodRef,
  type PodSnapshot,
} from './pod.js';

/** Which pods a drain may evict, as kubectl drain's flags of the same names decide. */
export interface DrainOptions {
  /** Leave DaemonSet pods alone (the DaemonSet controller would recreate them at once). Default true. */
  ignoreDaemonSets: boolean;
  /** Evict pods using emptyDir volumes; their data is lost. Default true for repair (the node is broken anyway). */
  deleteEmptyDirData: boolean;
  /** Evict pods without a controller; nothing recreates them. Default false. */
  force: boolean;
}

/**
 * The options a repair drains with: DaemonSet pods left alone, emptyDir pods evicted, pods without
 * a controller left in place.
 */
export const defaultDrainOptions: DrainOptions = {
  ignoreDaemonSets: true,
  deleteEmptyDirData: true,
  force: false,
};

/**
 * Why a pod is left in place without blocking the drain: a mirror (static) pod, a DaemonSet pod, or
 * one already terminating.
 */
export type SkipReason = 'MirrorPod' | 'DaemonSet' | 'Terminating';
/**
 * Why a pod the options forbid evicting blocks the drain: a DaemonSet pod (ignoreDaemonSets off),
 * no controller (force off), or emptyDir data (deleteEmptyDirData off).
 */
export type BlockReason = 'DaemonSet' | 'UnmanagedPod' | 'LocalStorage';

/** What a drain does with each pod on the node: evict, skip or blocked. */
export interface DrainPlan {
  /** Pods to evict. */
  evict: PodRef[];
  /** Left in place on purpose (or already going away). */
  skip: Array<{ pod: PodRef; reason: SkipReason }>;
  /** Not evicted because the options forbid it; a drain with blocked pods is incomplete. */
  blocked: Array<{ pod: PodRef; reason: BlockReason; message: string }>;
}

const finished = (p: PodSnapshot) =>
  p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * Sorts the node's pods into evict, skip and blocked by kubectl drain's rules, in its order (pure).
 * Finished pods (Succeeded or Failed) are evicted whatever owns them.
 */
export function planDrain(
  pods: readonly PodSnapshot[],
  opts: DrainOptions = defaultDrainOptions,
): DrainPlan {
  const plan: DrainPlan = { evict: [], skip: [], blocked: [] };
  for (const p of pods) {
    const ref = podRef(p);
    // Mirror (static) pods cannot be deleted through the API; the kubelet owns them.
    if (p.metadata?.annotations?.[AnnotationMirrorPod] !== undefined) {
      plan.skip.push({ pod: ref, reason: 'MirrorPod' });
      continue;
    }
    if (p.metadata?.deletionTimestamp !== undefined) {
      plan.skip.push({ pod: ref, reason: 'Terminating' });
      continue;
    }
    const owner = controllerOf(p);
    if (owner?.kind === 'DaemonSet') {
      if (opts.ignoreDaemonSets) plan.skip.push({ pod: ref, reason: 'DaemonSet' });
      else
        plan.blocked.push({
          pod: ref,
          reason: 'DaemonSet',
          message: `${ref.namespace}/${ref.name} is managed by DaemonSet ${owner.name} (ignoreDaemonSets is off)`,
        });
      continue;
    }
    // Finished pods are deletable whatever owns them: nothing is lost.
    if (!finished(p)) {
      if (owner === undefined && !opts.force) {
        plan.blocked.push({
          pod: ref,
          reason: 'UnmanagedPod',
          message: `${ref.namespace}/${ref.name} has no controller; nothing would recreate it (force is off)`,
        });
        continue;
      }
      if (
        !opts.deleteEmptyDirData &&
        (p.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined)
      ) {
        plan.blocked.push({
          pod: ref,
          reason: 'LocalStorage',
          message: `${ref.namespace}/${ref.name} uses emptyDir volumes (deleteEmptyDirData is off)`,
        });
        continue;
      }
    }
    plan.evict.push(ref);
  }
  return plan;
}

/**
 * The pods a drain still waits for, sorted: those to evict and those already terminating (a
 * drain is done when they are gone, not when they were asked to go).
 */
export function podsLeft(plan: DrainPlan): string[] {
  const terminating = plan.skip.filter((s) => s.reason === 'Terminating').map((s) => podKey(s.pod));
  return [...plan.evict.map(podKey), ...terminating].sort();
}
