// The default leader-election identity: unique per PROCESS, as controller-runtime's
// (hostname + "_" + a random UUID). Never a PID: every container's main process is PID 1, so
// two replicas named after their PID would both believe they hold the same Lease. POD_NAME
// (the downward API) or the hostname says which pod; the random suffix tells a restarted
// container apart from its predecessor, which may still be mid-action with the old term.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * A leader-election identity unique per container: `POD_NAME` (or the host name) plus a random
 * UUID, so a restarted container is never taken for its predecessor.
 */
export function defaultLeaderIdentity(
  env: Readonly<Record<string, string | undefined>> = process.env,
  host: () => string = hostname,
  suffix: () => string = randomUUID,
): string {
  const who = env['POD_NAME'] || host() || 'unknown-host';
  return `${who}_${suffix()}`;
}
