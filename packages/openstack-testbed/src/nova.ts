// The few Nova reads the testbed offers (plain fetch, see keystone.ts for why).
import type { Token } from './keystone.js';

/** One entry of GET /servers/{id}/os-instance-actions. */
export interface InstanceAction {
  readonly action: string;
  readonly requestId: string;
  readonly startTime: string;
}

/** One event of GET /servers/{id}/os-instance-actions/{request_id} (the compute side of an action). */
export interface InstanceActionEvent {
  readonly event: string;
  /** "Success", "Error", or null while the event is still running. */
  readonly result: string | null;
  readonly startTime: string;
  readonly finishTime: string | null;
}

/** The part of GET /servers/{id} the e2e tests read. */
export interface ServerState {
  readonly status: string;
  readonly vmState: string;
  readonly taskState: string | null;
}

/** The microversion the testbed speaks: 2.37 is the first with "networks": "none". */
export const COMPUTE_MICROVERSION = '2.37';
/** 2.51 is the first microversion that shows a non-admin the events of an action. */
const EVENTS_MICROVERSION = '2.51';

export function computeUrl(token: Token): string {
  const url = token.endpoints['compute'];
  if (url === undefined)
    throw new Error('keystone catalog: no public "compute" endpoint in RegionOne');
  return url.replace(/\/$/, '');
}

function str(r: Record<string, unknown>, name: string, where: string): string {
  const v = r[name];
  if (typeof v !== 'string') throw new Error(`nova: ${where}.${name}: expected a string`);
  return v;
}

function strOrNull(r: Record<string, unknown>, name: string, where: string): string | null {
  const v = r[name];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new Error(`nova: ${where}.${name}: expected a string or null`);
  return v;
}

function parseAction(raw: unknown, index: number): InstanceAction {
  const r = (raw ?? {}) as Record<string, unknown>;
  const where = `instanceActions[${index}]`;
  return {
    action: str(r, 'action', where),
    requestId: str(r, 'request_id', where),
    startTime: str(r, 'start_time', where),
  };
}

async function novaGet(token: Token, path: string, microversion: string): Promise<unknown> {
  const res = await fetch(`${computeUrl(token)}${path}`, {
    headers: { 'x-auth-token': token.id, 'openstack-api-version': `compute ${microversion}` },
  });
  if (res.status !== 200) {
    await res.arrayBuffer();
    throw new Error(`nova: GET ${path} returned HTTP ${res.status}, expected 200`);
  }
  return res.json();
}

/** Nova's own record of what was done to a server, oldest first. */
export async function listInstanceActions(
  token: Token,
  serverId: string,
): Promise<InstanceAction[]> {
  const body = (await novaGet(
    token,
    `/servers/${encodeURIComponent(serverId)}/os-instance-actions`,
    COMPUTE_MICROVERSION,
  )) as { instanceActions?: unknown };
  if (!Array.isArray(body.instanceActions))
    throw new Error('nova: instanceActions: expected an array');
  // Nova returns newest first, ordered by creation time and then by row id. start_time has
  // one-second resolution, so sorting on it would shuffle actions of the same second:
  // reversing Nova's own order is the exact oldest-first history.
  return body.instanceActions.map(parseAction).reverse();
}

/** The events of one action (for a reboot: compute_reboot_instance, with its result once nova-compute finished). */
export async function instanceActionEvents(
  token: Token,
  serverId: string,
  requestId: string,
): Promise<InstanceActionEvent[]> {
  const body = (await novaGet(
    token,
    `/servers/${encodeURIComponent(serverId)}/os-instance-actions/${encodeURIComponent(requestId)}`,
    EVENTS_MICROVERSION,
  )) as { instanceAction?: { events?: unknown } };
  const events = body.instanceAction?.events;
  if (!Array.isArray(events)) throw new Error('nova: instanceAction.events: expected an array');
  return events.map((raw: unknown, i) => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const where = `instanceAction.events[${i}]`;
    return {
      event: str(r, 'event', where),
      result: strOrNull(r, 'result', where),
      startTime: str(r, 'start_time', where),
      finishTime: strOrNull(r, 'finish_time', where),
    };
  });
}

/** GET /servers/{id}: status, vm_state and task_state. */
export async function serverState(token: Token, serverId: string): Promise<ServerState> {
  const body = (await novaGet(
    token,
    `/servers/${encodeURIComponent(serverId)}`,
    COMPUTE_MICROVERSION,
  )) as {
    server?: Record<string, unknown>;
  };
  const s = body.server;
  if (s === undefined) throw new Error('nova: GET server: no "server" in the reply');
  return {
    status: str(s, 'status', 'server'),
    vmState: str(s, 'OS-EXT-STS:vm_state', 'server'),
    taskState: strOrNull(s, 'OS-EXT-STS:task_state', 'server'),
  };
}

/** GET /servers/{id}/metadata. */
export async function serverMetadata(
  token: Token,
  serverId: string,
): Promise<Record<string, string>> {
  const body = (await novaGet(
    token,
    `/servers/${encodeURIComponent(serverId)}/metadata`,
    COMPUTE_MICROVERSION,
  )) as {
    metadata?: unknown;
  };
  const m = body.metadata;
  if (typeof m !== 'object' || m === null || Object.values(m).some((v) => typeof v !== 'string'))
    throw new Error('nova: metadata: expected a map of strings');
  return m as Record<string, string>;
}

/** Nova's admin action os-resetState (vm_state `error` or `active`, task cleared); needs an admin token. */
export async function resetServerState(
  token: Token,
  serverId: string,
  state: 'error' | 'active',
): Promise<void> {
  const res = await fetch(`${computeUrl(token)}/servers/${encodeURIComponent(serverId)}/action`, {
    method: 'POST',
    headers: {
      'x-auth-token': token.id,
      'openstack-api-version': `compute ${COMPUTE_MICROVERSION}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ 'os-resetState': { state } }),
  });
  await res.arrayBuffer();
  if (res.status !== 202)
    throw new Error(`nova: os-resetState of ${serverId} returned HTTP ${res.status}, expected 202`);
}

/** As the cloud admin: whether Nova calls the compute service up (its last heartbeat younger
 * than service_down_time), as the scheduler's ComputeFilter judges it. */
export async function computeServiceUp(token: Token): Promise<boolean> {
  const res = await fetch(`${computeUrl(token)}/os-services?binary=nova-compute`, {
    headers: {
      'x-auth-token': token.id,
      'openstack-api-version': `compute ${COMPUTE_MICROVERSION}`,
    },
  });
  if (res.status !== 200) {
    await res.arrayBuffer();
    throw new Error(`nova: GET os-services returned HTTP ${res.status}, expected 200`);
  }
  const body = (await res.json()) as { services: { state: string; status: string }[] };
  return body.services.some((s) => s.state === 'up' && s.status === 'enabled');
}
