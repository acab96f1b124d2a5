// Double actions measured from the provider's own record, not assumed. The FAKE recording
// provider (fake-recording-provider.ts) logs every request it receives, one JSON line each
// with the node, the action, its action id and whether the controller sent it as a replay.
// Read back from the controller processes' output, that is the machine side's view: what
// arrived, whoever sent it and whatever the controller believed about it.
//
// Two things count as a double action on a machine:
//  - one action id sent fresh (not as a replay) more than once: the controller forgot it had
//    sent it, so a provider without an idempotency record would have acted twice;
//  - more distinct action ids of one kind for one node than the scenario allows (by default
//    one: a storm window, a drain, a fence scenario each start at most one of each kind per
//    node), i.e. the same step started again under a new id.

/** The message the fake recording provider logs for each request. */
export const PROVIDER_REQUEST_MESSAGE = 'fake-recording provider: request recorded';

/** One request as the provider recorded it. */
export interface RecordedRequest {
  readonly node: string;
  readonly action: string;
  readonly actionId: string;
  readonly replay: boolean;
}

/** The provider's requests in the given output lines (other lines are skipped). */
export function recordedRequests(lines: readonly string[]): RecordedRequest[] {
  const out: RecordedRequest[] = [];
  for (const line of lines) {
    if (!line.includes(PROVIDER_REQUEST_MESSAGE)) continue;
    let j: Record<string, unknown>;
    try {
      j = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A record line we cannot read is a measurement we cannot make: fail loudly.
      throw new Error(`provider record line is not JSON: ${line.slice(0, 200)}`);
    }
    const { node, action, actionId, replay } = j;
    if (typeof node !== 'string' || typeof action !== 'string' || typeof actionId !== 'string')
      throw new Error(`provider record line lacks node/action/actionId: ${line.slice(0, 200)}`);
    out.push({ node, action, actionId, replay: replay === true });
  }
  return out;
}

/** What the record says: requests seen and the double actions among them. */
export interface DoubleActions {
  /** Requests the provider recorded (replays included). */
  readonly requests: number;
  /** Double actions, as defined above; 0 is a measurement. */
  readonly doubles: number;
  /** One line per double, for the ledger's note and a failing assertion's message. */
  readonly details: string[];
}

/**
 * Counts double actions in the provider's record. `allowedPerKind` is how many distinct action
 * ids of one action kind one node may receive in this scenario (default 1).
 */
export function doubleActions(
  requests: readonly RecordedRequest[],
  allowedPerKind: (node: string, action: string) => number = () => 1,
): DoubleActions {
  const fresh = new Map<string, number>();
  const idsPerKind = new Map<string, Set<string>>();
  for (const r of requests) {
    if (!r.replay) fresh.set(r.actionId, (fresh.get(r.actionId) ?? 0) + 1);
    const k = `${r.node}\u0000${r.action}`;
    const ids = idsPerKind.get(k) ?? new Set<string>();
    ids.add(r.actionId);
    idsPerKind.set(k, ids);
  }
  const details: string[] = [];
  let doubles = 0;
  for (const [id, n] of fresh)
    if (n > 1) {
      doubles += n - 1;
      details.push(`action id ${id} sent fresh ${n} times`);
    }
  for (const [k, ids] of idsPerKind) {
    const [node = '', action = ''] = k.split('\u0000');
    const extra = ids.size - allowedPerKind(node, action);
    if (extra > 0) {
      doubles += extra;
      details.push(`${node}: ${ids.size} distinct ${action} ids (${[...ids].join(', ')})`);
    }
  }
  return { requests: requests.length, doubles, details };
}
