// Replace on Nova without Cluster API: the server is deleted, and whoever owns the node group
// (Cluster Autoscaler, Magnum, Heat, a user's script) brings capacity back. Deleting cannot be
// undone and a second DELETE of a server someone else is deleting helps nobody, so Nova is
// asked before anything is sent: a server that is gone (404, DELETED, SOFT_DELETED) or being
// deleted (task deleting / soft-deleting) is never sent a DELETE. On a replay (intent
// persisted, outcome not) Nova's os-instance-actions also say whether our first DELETE
// arrived: nova-api records `delete` before its 204, and lists a deleted server's actions
// from microversion 2.21 on. The decisions here are pure; NovaMachineProvider does the I/O.
import type { FenceStatus } from '@noderepair/core/provider';
import type { InstanceAction } from './nova.js';
import type { ServerInfo } from './server.js';

/** Statuses of a server Nova has deleted (DELETED shows only to admins listing deleted ones). */
const GONE_STATUSES = new Set(['DELETED', 'SOFT_DELETED']);
/** Task states of a deletion in progress (task_states.DELETING, SOFT_DELETING). */
const DELETING_TASKS = new Set(['deleting', 'soft-deleting']);

/** The name Nova records for a server delete (hard or soft) in os-instance-actions. */
export const NOVA_DELETE_ACTION = 'delete';

/** What Nova shows about the server's deletion. */
export type Deletion =
  | { readonly kind: 'Seen'; readonly detail: string; readonly requestId?: string }
  | { readonly kind: 'NotSeen'; readonly server: ServerInfo };

/** From GET /servers/{id}: gone or being deleted, or still there. */
export function deletionOfServer(serverId: string, s: ServerInfo): Deletion {
  if (GONE_STATUSES.has(s.status))
    return { kind: 'Seen', detail: `server ${serverId} is ${s.status}` };
  if (s.taskState !== null && DELETING_TASKS.has(s.taskState))
    return { kind: 'Seen', detail: `server ${serverId} is being deleted (task ${s.taskState})` };
  return { kind: 'NotSeen', server: s };
}

/**
 * This attempt's `delete` in os-instance-actions (newest first, as Nova lists them): the
 * oldest one that started at or after `since` (the intent's second, less the skew allowance).
 */
export function deleteRecordSince(
  actions: readonly InstanceAction[],
  since: number,
): InstanceAction | undefined {
  return actions.filter((a) => a.action === NOVA_DELETE_ACTION && a.startTime >= since).at(-1);
}

/**
 * fence() after a Replace, from GET /servers/{id}. A 404 alone is not proof: Nova also
 * answers 404 for another project's server (wrong credentials) and that machine may well be
 * running. `recordsOfDeleted` is what os-instance-actions (2.21) said about the missing
 * server: its records when Nova still knows it as this project's deleted server, undefined
 * when Nova knows nothing of it either.
 */
export function fenceAfterDelete(
  serverId: string,
  server: ServerInfo | 'NotFound',
  recordsOfDeleted: readonly InstanceAction[] | undefined,
): FenceStatus {
  if (server === 'NotFound') {
    if (recordsOfDeleted === undefined)
      return {
        kind: 'NotFenced',
        reason: `Nova: server ${serverId} not found and Nova has no records of it in this project (another project's server, wrong credentials, or records archived): not taken as deleted`,
      };
    const del = recordsOfDeleted.find((a) => a.action === NOVA_DELETE_ACTION);
    return {
      kind: 'Fenced',
      how: 'Deleted',
      evidence: del
        ? `Nova: server ${serverId} not found; its delete ${del.requestId} started at ${new Date(del.startTime).toISOString()}`
        : `Nova: server ${serverId} not found; Nova lists it as a deleted server of this project`,
    };
  }
  if (server.status === 'DELETED')
    return { kind: 'Fenced', how: 'Deleted', evidence: `Nova: server ${serverId} is DELETED` };
  if (server.status === 'SOFT_DELETED')
    // Nova stops a soft-deleted server; it may be restored until the cloud reclaims it.
    return {
      kind: 'Fenced',
      how: 'PoweredOff',
      evidence: `Nova: server ${serverId} is SOFT_DELETED (stopped, reclaimable)`,
    };
  return {
    kind: 'NotFenced',
    reason: `Nova: server ${serverId} is ${server.status} (task ${server.taskState ?? 'none'}), not deleted yet`,
  };
}
