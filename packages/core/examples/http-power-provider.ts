// A minimal machine provider for `noderepair run --provider-module`: machines behind a small
// HTTP power API (a BMC gateway, a lab's power controller) that resets a machine at most once
// per Idempotency-Key and keeps a record of every reset. Compile it, then:
//   noderepair run --policy policy.yaml --provider-module ./http-power-provider.js \
//     --provider-opt endpoint=https://power.example:8443/
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  ProviderAction,
  ProviderContext,
  ProviderModule,
  ProviderOutcome,
} from '@noderepair/core/provider';

/** "power:///rack1-07" -> "rack1-07": the Node's spec.providerID names the machine. */
const machineOf = (providerID: string) => providerID.replace(/^[a-z0-9+.-]+:\/\/\/?/i, '');

class HttpPowerProvider implements MachineProvider {
  readonly name = 'http-power';
  // Only what this API can do; a policy naming another step is refused at start.
  readonly actions: ReadonlySet<ProviderAction> = new Set<ProviderAction>(['HardReboot']);

  constructor(private readonly base: URL) {}

  async execute(req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> {
    const url = new URL(
      `machines/${encodeURIComponent(machineOf(req.providerID))}/reset`,
      this.base,
    );
    let res: Response;
    try {
      // Promise 1: the action id is the idempotency key, so a replay (req.replay) cannot
      // reset twice; the API answers it with the first outcome.
      res = await fetch(url, {
        method: 'POST',
        headers: { 'idempotency-key': req.actionId },
        signal: ctx.signal,
      });
    } catch (e) {
      // Promises 2 and 3: no answer is not a refusal, and the request may have arrived.
      return {
        kind: 'Unavailable',
        message: `power API: ${(e as Error).message}`,
        maybeSent: true,
      };
    }
    if (res.ok) return { kind: 'Accepted', message: `reset accepted (HTTP ${res.status})` };
    if (res.status === 429 || res.status >= 500)
      return {
        kind: 'Unavailable',
        message: `power API answered HTTP ${res.status}`,
        maybeSent: res.status !== 429,
        retryAfterMs: 30_000,
      };
    return { kind: 'Rejected', message: `power API refused the reset: HTTP ${res.status}` };
  }

  async fence(q: FenceQuery, ctx: ProviderContext): Promise<FenceStatus> {
    // Promise 4: fenced only on the API's own record that this very reset was carried out.
    let res: Response;
    try {
      res = await fetch(new URL(`resets/${encodeURIComponent(q.actionId)}`, this.base), {
        signal: ctx.signal,
      });
    } catch (e) {
      return { kind: 'Unavailable', reason: `power API: ${(e as Error).message}` };
    }
    if (res.status === 404)
      return { kind: 'NotFenced', reason: `no reset ${q.actionId} on record` };
    if (!res.ok) return { kind: 'Unavailable', reason: `power API answered HTTP ${res.status}` };
    const reset = (await res.json()) as { done?: boolean; at?: string };
    return reset.done === true
      ? {
          kind: 'Fenced',
          how: 'ResetObserved',
          evidence: `the power API records reset ${q.actionId} of ${q.node} as done`,
          ...(reset.at !== undefined ? { at: Date.parse(reset.at) } : {}),
        }
      : { kind: 'NotFenced', reason: `reset ${q.actionId} is not done yet` };
  }
}

export const providerModule: ProviderModule = {
  name: 'http-power',
  options: { endpoint: 'base URL of the power API, e.g. https://power.example:8443/' },
  create({ options }) {
    const endpoint = options['endpoint'];
    if (endpoint === undefined) throw new Error('needs --provider-opt endpoint=URL');
    return new HttpPowerProvider(new URL(endpoint));
  },
};
