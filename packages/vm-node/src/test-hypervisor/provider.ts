// The MachineProvider of the test hypervisor (hypervisor.ts): core's provider port and its four
// promises, over the hypervisor's control API, as a real provider talks to its cloud.
//   exactly once   a replay asks the hypervisor's records for the actionId before sending;
//                  the hypervisor itself never executes an id twice
//   outages        no answer (socket missing, refused, 5xx, timeout) is Unavailable, never Rejected
//   lost replies   a request that may have left (reset, timeout, 5xx) is maybeSent: true
//   fencing        Fenced only when the hypervisor observed the reset or the stop
// `noderepair run --provider-module <this module> --provider-opt control=<socket>` loads it.
import { request } from 'node:http';
import type {
  ActionRequest,
  FenceQuery,
  FenceStatus,
  MachineProvider,
  MachineRef,
  PowerState,
  ProviderAction,
  ProviderContext,
  ProviderModule,
  ProviderOutcome,
} from '@noderepair/core/provider';
import {
  PROVIDER_ID_PREFIX,
  type ActionRecord,
  type FenceAnswer,
  type PowerAnswer,
} from './wire.js';

const ACTIONS: ReadonlySet<ProviderAction> = new Set(['SoftReboot', 'HardReboot', 'PowerOff']);
const TIMEOUT_MS = 10_000;

type Reply = { readonly status: number; readonly body: unknown };
/** No reply. `mayHaveLeft`: the request may have reached the hypervisor. */
class NoReply extends Error {
  constructor(
    message: string,
    readonly mayHaveLeft: boolean,
  ) {
    super(message);
  }
}

function call(
  control: string,
  method: 'GET' | 'POST',
  path: string,
  signal: AbortSignal,
  body?: unknown,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    let sent = false;
    const req = request(
      {
        socketPath: control,
        // A connection per request: a pooled keep-alive socket to an API that restarted fails with
        // EPIPE after the write, which would read as "maybe sent" for a request that never arrived.
        agent: false,
        method,
        path,
        signal,
        timeout: TIMEOUT_MS,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let s = '';
        res.on('data', (d: Buffer) => (s += d.toString('utf8')));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: s === '' ? undefined : JSON.parse(s) });
          } catch {
            reject(new NoReply(`unreadable reply (HTTP ${res.statusCode})`, true));
          }
        });
        res.on('error', (e) => reject(new NoReply(e.message, true)));
      },
    );
    req.on('socket', (sock) => sock.on('connect', () => (sent = true)));
    req.on('timeout', () => req.destroy(new Error(`no reply in ${TIMEOUT_MS} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      // Refused or no socket file: the request never left. Anything later: it may have.
      const before = e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || !sent;
      reject(new NoReply(`test hypervisor: ${e.code ?? e.message}`, !before));
    });
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const messageOf = (r: Reply) =>
  (r.body as { message?: string } | undefined)?.message ?? `HTTP ${r.status}`;

/** The machine name in `qemu-test:///<name>`, or undefined for any other providerID. */
export function machineOf(providerID: string): string | undefined {
  if (!providerID.startsWith(PROVIDER_ID_PREFIX)) return undefined;
  const name = providerID.slice(PROVIDER_ID_PREFIX.length);
  return /^[a-z0-9][-a-z0-9.]*$/.test(name) ? name : undefined;
}

/** A MachineProvider over the test hypervisor's control socket `control`. */
export function testHypervisorProvider(control: string): MachineProvider {
  const base = (m: MachineRef) => {
    const name = machineOf(m.providerID);
    return name === undefined ? undefined : `/machines/${encodeURIComponent(name)}`;
  };
  const notOurs = (m: MachineRef) =>
    `providerID "${m.providerID}" of node ${m.node} is not a test hypervisor machine (${PROVIDER_ID_PREFIX}<name>)`;

  const execute = async (req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome> => {
    const path = base(req);
    if (path === undefined) return { kind: 'Rejected', message: notOurs(req) };
    if (!ACTIONS.has(req.action))
      return { kind: 'Rejected', message: `the test hypervisor cannot ${req.action}` };
    const actions = `${path}/actions`;
    try {
      if (req.replay) {
        // Promise 1: the records first. Found: it ran, and this is its answer; nothing is sent.
        const known = await call(
          control,
          'GET',
          `${actions}/${encodeURIComponent(req.actionId)}`,
          ctx.signal,
        );
        if (known.status === 200) {
          const r = known.body as ActionRecord;
          return {
            kind: 'Accepted',
            message: `${r.action} ${r.actionId} already executed at ${new Date(r.acceptedAt).toISOString()}`,
            ref: r.actionId,
          };
        }
        if (known.status !== 404)
          return { kind: 'Unavailable', message: messageOf(known), maybeSent: true };
      }
      const r = await call(control, 'POST', actions, ctx.signal, {
        actionId: req.actionId,
        action: req.action,
      });
      if (r.status === 202)
        return {
          kind: 'Accepted',
          message: `${req.action} accepted by the test hypervisor`,
          ref: req.actionId,
        };
      if (r.status >= 500) return { kind: 'Unavailable', message: messageOf(r), maybeSent: true };
      return { kind: 'Rejected', message: messageOf(r) };
    } catch (e) {
      const maybeSent = e instanceof NoReply ? e.mayHaveLeft || req.replay : true;
      return { kind: 'Unavailable', message: (e as Error).message, maybeSent };
    }
  };

  const fence = async (q: FenceQuery, ctx: ProviderContext): Promise<FenceStatus> => {
    const path = base(q);
    if (path === undefined) return { kind: 'NotFenced', reason: notOurs(q) };
    try {
      const r = await call(
        control,
        'GET',
        `${path}/actions/${encodeURIComponent(q.actionId)}/fence`,
        ctx.signal,
      );
      if (r.status === 404) return { kind: 'NotFenced', reason: messageOf(r) };
      if (r.status !== 200) return { kind: 'Unavailable', reason: messageOf(r) };
      const a = r.body as FenceAnswer;
      return a.fenced
        ? {
            kind: 'Fenced',
            how: a.how,
            evidence: a.evidence,
            ...(a.at !== undefined ? { at: a.at } : {}),
          }
        : { kind: 'NotFenced', reason: a.reason };
    } catch (e) {
      return { kind: 'Unavailable', reason: (e as Error).message };
    }
  };

  const powerState = async (m: MachineRef, ctx: ProviderContext): Promise<PowerState> => {
    const path = base(m);
    if (path === undefined) return { kind: 'Unavailable', reason: notOurs(m) };
    try {
      const r = await call(control, 'GET', `${path}/power`, ctx.signal);
      if (r.status === 404) return { kind: 'Gone', evidence: messageOf(r) };
      if (r.status !== 200) return { kind: 'Unavailable', reason: messageOf(r) };
      const p = r.body as PowerAnswer;
      return p.state === 'On'
        ? { kind: 'On' }
        : {
            kind: 'Off',
            byRequest: p.byRequest,
            evidence: p.evidence,
            ...(p.since !== undefined ? { since: p.since } : {}),
          };
    } catch (e) {
      return { kind: 'Unavailable', reason: (e as Error).message };
    }
  };

  return { name: 'test-hypervisor', actions: ACTIONS, execute, fence, powerState };
}

/** For `noderepair run --provider-module`: `--provider-opt control=<socket path>`. */
export const providerModule: ProviderModule = {
  name: 'test-hypervisor',
  options: { control: 'path of the test hypervisor control socket (TestHypervisor.controlSocket)' },
  create: ({ options }) => {
    const control = options['control'];
    if (control === undefined || control === '')
      throw new Error(
        'test-hypervisor: option control is required (--provider-opt control=<socket path>)',
      );
    return testHypervisorProvider(control);
  },
};
