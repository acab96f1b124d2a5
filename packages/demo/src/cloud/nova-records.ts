// Reading Nova's own records of what was done to the demo's servers (the real cloud). Pure, so
// unit tested on Nova's reply shapes.

/** A server as GET /servers/detail?changes-since lists it. */
export interface ChangedServer {
  readonly id: string;
  /** DELETED for a server deleted since (changes-since lists those too). */
  readonly status: string;
  readonly updated: string;
  readonly taskState: string | null;
}

/** Parses the body of GET /servers/detail; entries of another shape are skipped. */
export function parseChangedServers(body: unknown): ChangedServer[] {
  const list = (body as { servers?: unknown } | null)?.servers;
  if (!Array.isArray(list)) throw new Error('nova: GET /servers/detail: no "servers" array');
  return list.flatMap((raw: unknown): ChangedServer[] => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const task = r['OS-EXT-STS:task_state'];
    return typeof r['id'] === 'string' &&
      typeof r['status'] === 'string' &&
      typeof r['updated'] === 'string'
      ? [
          {
            id: r['id'],
            status: r['status'],
            updated: r['updated'],
            taskState: typeof task === 'string' ? task : null,
          },
        ]
      : [];
  });
}

/** Nova's changes-since value: whole seconds, `slackMs` before `sinceMs` (its clock may lag). */
export function changesSince(sinceMs: number, slackMs = 5_000): string {
  return new Date(Math.floor((sinceMs - slackMs) / 1000) * 1000)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z');
}

/**
 * The reboots in a server's os-instance-actions (oldest first) not seen before, as Nova
 * accepted them. Nova's record does not say SOFT or HARD: the type is left open.
 */
export function newReboots(
  serverId: string,
  actions: readonly { action: string; requestId: string; startTime: string }[],
  seen: ReadonlySet<string>,
): { at: number; serverId: string; type: undefined; requestId: string }[] {
  return actions
    .filter((a) => a.action === 'reboot' && !seen.has(a.requestId))
    .map((a) => ({
      // Nova's start_time has no zone: it is UTC.
      at: Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(a.startTime) ? a.startTime : `${a.startTime}Z`),
      serverId,
      type: undefined,
      requestId: a.requestId,
    }));
}
