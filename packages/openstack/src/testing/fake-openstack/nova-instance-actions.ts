// FAKE Nova's instance-action records (os-instance-actions): what nova-api writes for each
// accepted action before its 202, and how GET answers for them, per microversion.
import type { FakeServerState } from './fake-compute.js';
import { fault, json, type RawResponse } from './http.js';

interface FakeInstanceAction {
  readonly action: string;
  readonly requestId: string;
  readonly startMs: number;
  /** The requester's user; null for what Nova records itself (its power-state sync). */
  readonly userId: string | null;
}

/** The action name Nova records for each body key of POST /servers/{id}/action. */
const INSTANCE_ACTION_NAMES: Readonly<Record<string, string>> = {
  reboot: 'reboot',
  'os-stop': 'stop',
  'os-start': 'start',
  rebuild: 'rebuild',
};

/** Each server's instance-action records, oldest first (kept after the server is deleted). */
export class FakeInstanceActions {
  readonly #byServer = new Map<string, FakeInstanceAction[]>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Nova records an accepted action in the API, before the 202: name, request id, start (to the second). */
  record(
    serverId: string,
    bodyKey: string | undefined,
    requestId: string,
    userId: string | null,
  ): void {
    const name = bodyKey === undefined ? 'unknown' : (INSTANCE_ACTION_NAMES[bodyKey] ?? bodyKey);
    const list = this.#byServer.get(serverId) ?? [];
    list.push({ action: name, requestId, startMs: this.#now(), userId });
    this.#byServer.set(serverId, list);
  }

  /**
   * GET /servers/{id}/os-instance-actions[/{request_id}], newest first, as Nova answers.
   * Events (2.51+ for non-admins): one compute_<action>_instance event whose finish_time is
   * set once the server has no task any more (the latest action) or the next action began.
   */
  reply(
    s: FakeServerState,
    method: string,
    requestId: string | undefined,
    minor: number,
    headers: Record<string, string>,
  ): RawResponse {
    if (method !== 'GET') return fault(405, 'badRequest', 'Method not allowed', headers);
    const list = this.#byServer.get(s.id) ?? [];
    const novaTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, '');
    const view = (a: FakeInstanceAction) => ({
      action: a.action,
      instance_uuid: s.id,
      request_id: a.requestId,
      start_time: novaTime(a.startMs),
      user_id: a.userId,
      message: null,
    });
    if (requestId === undefined)
      return json(200, { instanceActions: [...list].reverse().map(view) }, headers);
    const i = list.findIndex((a) => a.requestId === decodeURIComponent(requestId));
    const a = list[i];
    if (a === undefined)
      return fault(404, 'itemNotFound', `Action ${requestId} could not be found.`, headers);
    const next = list[i + 1];
    const finish =
      next !== undefined ? next.startMs : s.taskState === null ? s.updatedAt : undefined;
    const body: Record<string, unknown> = view(a);
    if (minor >= 51)
      body.events = [
        {
          event: `compute_${a.action}_instance`,
          start_time: novaTime(a.startMs),
          finish_time: finish === undefined ? null : novaTime(finish),
          result: finish === undefined ? null : 'Success',
        },
      ];
    return json(200, { instanceAction: body }, headers);
  }

  /** Nova's own record of a server's accepted actions (os-instance-actions), oldest first. */
  list(serverId: string): ReadonlyArray<{ action: string; requestId: string }> {
    return (this.#byServer.get(serverId) ?? []).map((a) => ({
      action: a.action,
      requestId: a.requestId,
    }));
  }
}
