// The few Nova reads the testbed offers (plain fetch, see keystone.ts for why).
import type { Token } from './keystone.js';

/** One entry of GET /servers/{id}/os-instance-actions. */
export interface InstanceAction {
  readonly action: string;
  readonly requestId: string;
  readonly startTime: string;
}

/** The microversion the testbed speaks: 2.37 is the first with "networks": "none". */
export const COMPUTE_MICROVERSION = '2.37';

export function computeUrl(token: Token): string {
  const url = token.endpoints['compute'];
  if (url === undefined) throw new Error('keystone catalog: no public "compute" endpoint in RegionOne');
  return url.replace(/\/$/, '');
}

function parseAction(raw: unknown, index: number): InstanceAction {
  const r = (raw ?? {}) as Record<string, unknown>;
  const field = (name: string): string => {
    const v = r[name];
    if (typeof v !== 'string') throw new Error(`nova: instanceActions[${index}].${name}: expected a string`);
    return v;
  };
  return { action: field('action'), requestId: field('request_id'), startTime: field('start_time') };
}

/** Nova's own record of what was done to a server, oldest first. */
export async function listInstanceActions(token: Token, serverId: string): Promise<InstanceAction[]> {
  const res = await fetch(`${computeUrl(token)}/servers/${encodeURIComponent(serverId)}/os-instance-actions`, {
    headers: { 'x-auth-token': token.id, 'openstack-api-version': `compute ${COMPUTE_MICROVERSION}` },
  });
  if (res.status !== 200) throw new Error(`nova: os-instance-actions for ${serverId} returned HTTP ${res.status}`);
  const body = (await res.json()) as { instanceActions?: unknown };
  if (!Array.isArray(body.instanceActions)) throw new Error('nova: instanceActions: expected an array');
  // Nova returns newest first, ordered by creation time and then by row id. start_time has
  // one-second resolution, so sorting on it would shuffle actions of the same second:
  // reversing Nova's own order is the exact oldest-first history.
  return body.instanceActions.map(parseAction).reverse();
}
