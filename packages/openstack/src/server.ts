// Nova's server representation, reduced to what remediation decides on.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from '@noderepair/core/codec';

const nullableString = t.union([t.string, t.null]);

const ServerBody = t.type({
  server: t.intersection([
    t.type({ id: t.string, status: t.string }),
    t.partial({
      name: t.string,
      'OS-EXT-STS:task_state': nullableString,
      'OS-EXT-STS:vm_state': nullableString,
      'OS-EXT-STS:power_state': t.union([t.number, t.null]),
      locked: t.boolean,
      updated: t.string,
    }),
  ]),
});

/** A Nova server reduced to the fields remediation decides on. */
export interface ServerInfo {
  /** The server's UUID. */
  readonly id: string;
  /** The server's display name (not unique). */
  readonly name: string | undefined;
  /** ACTIVE, REBOOT, HARD_REBOOT, SHUTOFF, ERROR, BUILD, REBUILD, ... */
  readonly status: string;
  /** OS-EXT-STS:task_state: null when Nova is not working on the server. */
  readonly taskState: string | null;
  /** OS-EXT-STS:vm_state: active, stopped, error, ... (absent without the extended-status policy). */
  readonly vmState: string | null;
  /**
   * OS-EXT-STS:power_state as Nova's number (0 NOSTATE, 1 RUNNING, 3 PAUSED, 4 SHUTDOWN, 6 CRASHED,
   * 7 SUSPENDED); null when not shown.
   */
  readonly powerState: number | null;
  /** Shown from microversion 2.9. */
  readonly locked: boolean | undefined;
  /** ISO 8601 time of the server record's last change. */
  readonly updated: string | undefined;
}

/** Decodes the body of GET /servers/{id}; Left names the field that did not match. */
export function decodeServer(body: unknown): E.Either<string, ServerInfo> {
  const r = ServerBody.decode(body);
  if (E.isLeft(r)) return E.left(`Nova server reply: ${formatErrors(r.left, 'body').join('; ')}`);
  const s = r.right.server;
  return E.right({
    id: s.id,
    name: s.name,
    status: s.status,
    taskState: s['OS-EXT-STS:task_state'] ?? null,
    vmState: s['OS-EXT-STS:vm_state'] ?? null,
    powerState: s['OS-EXT-STS:power_state'] ?? null,
    locked: s.locked,
    updated: s.updated,
  });
}

/** True when Nova reports no task in progress and the server runs. */
export function isServerSettledActive(s: ServerInfo): boolean {
  return s.status === 'ACTIVE' && s.taskState === null;
}
