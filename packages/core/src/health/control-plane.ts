// Control-plane nodes (issue 42): left alone unless the policy opts in. A control-plane node
// runs the apiserver and, on most clusters, an etcd member: cordoning, draining and
// hard-rebooting it like a worker can take the quorum down with it, and the fleet then loses
// the very API a repair needs. So by default such a node is never repaired (held, with the
// reason in `noderepair status` and the NodeRepairHeld condition); `controlPlane.repair: true`
// opts in, and even then at most one control-plane node is in repair at a time, none starts
// while another control-plane node is not Ready (a second member down is the quorum), and
// Replace is never used on one (the ladder of a control-plane node is the policy's without it).
//
// Why the storm guard and not an actor hold (actors.ts): the quorum and one-at-a-time rules
// read the whole fleet (which control-plane nodes are Ready, in repair, admitted in this very
// pass), and only the storm guard sees it, once per pass, in its admission order. Actor holds
// are judged one node at a time from the other actors' marks, read at most once a second and
// skipped when `coordination.actors` is empty: two control-plane nodes admitted in one burst
// pass would both start. The hold still speaks as an actor hold (actor ControlPlane), so the
// Event, the NodeRepairHeld condition, the hold metrics and `noderepair status` say it the
// same way as for Kured or a NodeMaintenance.
import * as t from 'io-ts';
import type { ActorHold } from './actor-hold.js';
import type { RepairPolicy } from './policy.js';

/** The label kubeadm (and most installers) put on control-plane nodes; any value. */
export const LabelNodeRoleControlPlane = 'node-role.kubernetes.io/control-plane';
/** The same role's label before Kubernetes 1.24; still on nodes of older installs. */
export const LabelNodeRoleMaster = 'node-role.kubernetes.io/master';

/** io-ts codec of the policy's `controlPlane` section as written; every field is optional. */
export const ControlPlaneInput = t.partial({ repair: t.boolean });
/** The `controlPlane` section as written in the policy. */
export type ControlPlaneInput = t.TypeOf<typeof ControlPlaneInput>;

/** The resolved `controlPlane` section. */
export interface ControlPlanePolicy {
  /**
   * Repair control-plane nodes (one at a time, never while another is not Ready, never
   * Replace). Default false: they are left alone.
   */
  repair: boolean;
}

/** What an empty `controlPlane` section means: control-plane nodes are left alone. */
export const defaultControlPlanePolicy: ControlPlanePolicy = { repair: false };

/** The control-plane label the node carries (the current one first), or undefined. */
export function controlPlaneLabel(
  labels: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (labels === undefined) return undefined;
  if (labels[LabelNodeRoleControlPlane] !== undefined) return LabelNodeRoleControlPlane;
  if (labels[LabelNodeRoleMaster] !== undefined) return LabelNodeRoleMaster;
  return undefined;
}

/**
 * The resolved section, pushing what is wrong onto `problems` (each naming its field).
 * `rules` are the resolved `unhealthyConditions`: a rule's own ladder is climbed by a
 * control-plane node it matches (policyForNode drops Replace from it too), so it is checked
 * as the top-level ladder is.
 */
export function resolveControlPlane(
  p: ControlPlaneInput | undefined,
  ladder: RepairPolicy['ladder'],
  problems: string[],
  rules: RepairPolicy['unhealthyConditions'] = [],
): ControlPlanePolicy {
  const repair = p?.repair ?? defaultControlPlanePolicy.repair;
  // Opted in with nothing a control-plane node may get: every one would give up at once.
  const onlyReplace = (l: RepairPolicy['ladder']) =>
    l.length > 0 && l.every((s) => s.action === 'Replace');
  if (repair && onlyReplace(ladder))
    problems.push(
      'controlPlane.repair: the ladder has no step but Replace, which is never used on a control-plane node',
    );
  if (repair)
    rules.forEach((r, i) => {
      if (r.ladder !== undefined && onlyReplace(r.ladder))
        problems.push(
          `unhealthyConditions[${i}].ladder: has no step but Replace, which is never used on a control-plane node, and controlPlane.repair is true: a control-plane node this rule matches would give up at once (add a step before Replace)`,
        );
    });
  return { repair };
}

// Replace is always the last step (ladderProblems), so dropping it keeps every other step's
// index: a repair state written against the full ladder reads the same against this one.
const cpPolicies = new WeakMap<RepairPolicy, RepairPolicy>();

/**
 * The policy a node is decided by: the policy itself, or for a control-plane node the policy
 * whose ladder has no Replace step (the ladder then ends, and the repair gives up, where a
 * worker would be replaced: a person decides what replaces a control-plane member).
 * `repairStep` is the step of the node's current repair, if any: a repair already at its
 * Replace step (sent before this rule, or before the node carried its label) keeps the whole
 * ladder, so it is followed to its end (the fence, the Node's deletion), never dropped half-way.
 */
export function policyForNode(
  policy: RepairPolicy,
  labels: Readonly<Record<string, string>> | undefined,
  repairStep?: number,
): RepairPolicy {
  if (controlPlaneLabel(labels) === undefined) return policy;
  const replaceAt = policy.ladder.findIndex((s) => s.action === 'Replace');
  if (replaceAt === -1 || (repairStep !== undefined && repairStep >= replaceAt)) return policy;
  let cp = cpPolicies.get(policy);
  if (cp === undefined) {
    cp = { ...policy, ladder: policy.ladder.filter((s) => s.action !== 'Replace') };
    cpPolicies.set(policy, cp);
  }
  return cp;
}

/** One control-plane node as the storm guard sees it. */
export interface ControlPlaneMember {
  name: string;
  /** Its Ready condition is True. */
  ready: boolean;
  /** In repair: ours (Remediating, Verifying) or another actor's disruption, or admitted now. */
  inRepair: boolean;
}

/**
 * Why a control-plane node that wants a repair must wait, as an actor hold; undefined when it
 * may start. `members` are the fleet's control-plane nodes other than gone ones (paused ones
 * too: an etcd member that is down is down, whoever paused its repair).
 */
export function controlPlaneHold(
  name: string,
  label: string,
  members: readonly ControlPlaneMember[],
  policy: ControlPlanePolicy,
): ActorHold | undefined {
  const hold = (detail: string): ActorHold => ({
    actor: 'ControlPlane',
    detail,
    disrupting: false,
  });
  if (!policy.repair)
    return hold(
      `a control-plane node (label ${label}) is left alone: the policy's controlPlane.repair is false`,
    );
  const others = members.filter((m) => m.name !== name);
  const busy = others.find((m) => m.inRepair);
  if (busy !== undefined)
    return hold(`control-plane node ${busy.name} is in repair: one control-plane node at a time`);
  const down = others.find((m) => !m.ready);
  if (down !== undefined)
    return hold(
      `control-plane node ${down.name} is not Ready: no repair while another member may be missing from the quorum`,
    );
  return undefined;
}
