// The Webhook site step against a real local HTTP server: what is sent (body, Idempotency-Key,
// Basic auth from the URL), how every kind of answer (or none) becomes an outcome, and that
// no message shows the URL's credentials or query.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LadderStep } from '../health/policy.js';
import type { ActionRequest, MachineProvider, ProviderOutcome } from './port.js';
import { withSiteSteps } from './site-steps.js';
import { parseRetryAfter } from '../runtime/backoff.js';

const signal = new AbortController().signal;

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** The site's endpoint: records each request; `reply` decides the answer (or none). */
let received: Received[] = [];
let reply: (res: ServerResponse, n: number) => void = (res) => res.end();
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(text || 'null'),
      });
      reply(res, received.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  received = [];
});

/** FAKE inner provider: must never see a site step. */
const innerFake: MachineProvider = {
  name: 'inner-fake',
  actions: new Set(['HardReboot']),
  execute: async (): Promise<ProviderOutcome> => {
    throw new Error('a site step reached the wrapped provider');
  },
  fence: async () => ({ kind: 'NotFenced', reason: 'fake' }),
};

function webhook(url: string, requestTimeoutMs = 5000): MachineProvider {
  const ladder: LadderStep[] = [
    { action: 'HardReboot', timeoutMs: 60_000, attempts: 1 },
    { action: 'Webhook', url, requestTimeoutMs, timeoutMs: 60_000, attempts: 1 },
  ];
  return withSiteSteps(innerFake, ladder, { env: {} });
}

let seq = 0;
function request(over: Partial<ActionRequest> = {}): ActionRequest {
  seq += 1;
  return {
    node: 'worker-2',
    providerID: 'metal://rack4/17',
    action: 'Webhook',
    actionId: `rem-w${seq}/Webhook-1`,
    issuedAt: Date.UTC(2026, 11, 5, 12, 0, 0),
    replay: false,
    ...over,
  };
}

const answer =
  (status: number, body = '', headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

describe('Webhook site step (real HTTP server)', () => {
  it('2xx is Accepted: a JSON POST with the repair, Idempotency-Key = actionId, Basic auth from the URL; the message shows neither credentials nor query', async () => {
    reply = answer(202, '{"ticket":"CHG-42"}');
    const url = `${base.replace('http://', 'http://ops:s3cr%40t@')}/replace?token=abcdef123&x=1`;
    const req = request();
    const r = await webhook(url).execute(req, { signal });
    expect(r).toEqual({
      kind: 'Accepted',
      message: `POST ${base}/replace answered 202: {"ticket":"CHG-42"}`,
    });
    expect(received).toHaveLength(1);
    const got = received[0] as Received;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/replace?token=abcdef123&x=1');
    expect(got.headers['idempotency-key']).toBe(req.actionId);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['authorization']).toBe(
      `Basic ${Buffer.from('ops:s3cr@t').toString('base64')}`,
    );
    expect(got.body).toEqual({
      node: 'worker-2',
      providerID: 'metal://rack4/17',
      action: 'Webhook',
      actionId: req.actionId,
      replay: false,
      issuedAt: '2026-12-05T12:00:00.000Z',
    });
  });

  it('an answered id is not sent again within the process', async () => {
    reply = answer(200);
    const p = webhook(`${base}/hook`);
    const req = request();
    await p.execute(req, { signal });
    await p.execute({ ...req, replay: true }, { signal });
    expect(received).toHaveLength(1);
  });

  it('4xx (but 401, 403, 404, 408, 429) is Rejected with the status (and the start of the reply), the echoed token masked', async () => {
    reply = answer(422, 'unknown node worker-2 (token abcdef123 ok)');
    const r = await webhook(`${base}/hook?token=abcdef123`).execute(request(), { signal });
    expect(r).toEqual({
      kind: 'Rejected',
      message: `POST ${base}/hook answered 422: unknown node worker-2 (token *** ok)`,
    });
  });

  it('401, 403 and 404 are Unavailable (an expired token or a missing route must not walk the ladder), naming what to check without the token; the re-issue carries the SAME Idempotency-Key', async () => {
    const check: Record<number, string> = {
      401: 'authentication failed: check the credentials in the url (user:password@ or its query)',
      403: 'forbidden: check that the credentials in the url may call this endpoint, and any proxy or firewall in front of it',
      404: 'not found: check the url (host and path), that the receiver runs, and that any proxy in front of it routes there',
    };
    for (const status of [401, 403, 404]) {
      received = [];
      reply = (res, n) =>
        n === 1 ? answer(status, 'token abcdef123 expired')(res) : answer(202)(res);
      const p = webhook(`${base.replace('http://', 'http://ops:pw-s3cret@')}/hook?token=abcdef123`);
      const req = request();
      const first = await p.execute(req, { signal });
      expect(first).toEqual({
        kind: 'Unavailable',
        message: `POST ${base}/hook answered ${status}: token *** expired (${check[status]})`,
        maybeSent: false,
      });
      expect(JSON.stringify(first)).not.toMatch(/abcdef123|pw-s3cret/);
      const again = await p.execute({ ...req, replay: true }, { signal });
      expect(again.kind).toBe('Accepted');
      expect(received.map((r) => r.headers['idempotency-key'])).toEqual([
        req.actionId,
        req.actionId,
      ]);
      expect(received.map((r) => (r.body as { replay: boolean }).replay)).toEqual([false, true]);
    }
  });

  it('5xx, 408 and 429 are Unavailable, maybe sent; the re-issue carries replay: true and the SAME Idempotency-Key', async () => {
    for (const status of [500, 503, 408, 429]) {
      received = [];
      reply = (res, n) =>
        n === 1 ? answer(status, 'busy', { 'retry-after': '7' })(res) : answer(201)(res);
      const p = webhook(`${base}/hook`);
      const req = request();
      const first = await p.execute(req, { signal });
      expect(first).toEqual({
        kind: 'Unavailable',
        message: `POST ${base}/hook answered ${status}: busy`,
        maybeSent: true,
        retryAfterMs: 7000,
      });
      const again = await p.execute({ ...req, replay: true }, { signal });
      expect(again.kind).toBe('Accepted');
      expect(received.map((r) => r.headers['idempotency-key'])).toEqual([
        req.actionId,
        req.actionId,
      ]);
      expect(received.map((r) => (r.body as { replay: boolean }).replay)).toEqual([false, true]);
    }
  });

  it('no answer within requestTimeout is Unavailable, maybe sent', async () => {
    reply = () => undefined; // holds the request for ever
    const r = await webhook(`${base}/slow`, 300).execute(request(), { signal });
    expect(r).toEqual({
      kind: 'Unavailable',
      message: `POST ${base}/slow: no answer within 300ms`,
      maybeSent: true,
    });
    expect(received).toHaveLength(1);
    server.closeAllConnections();
  });

  it('a network error (connection refused) is Unavailable with the system code only', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const r = await webhook(`http://u:pw-secret@127.0.0.1:${port}/x?k=v-secret`).execute(
      request(),
      { signal },
    );
    expect(r).toEqual({
      kind: 'Unavailable',
      message: `POST http://127.0.0.1:${port}/x: ECONNREFUSED`,
      maybeSent: true,
    });
  });

  it('a redirect is not followed: Rejected, naming what to fix', async () => {
    reply = answer(307, '', { location: 'https://elsewhere.example/' });
    const r = await webhook(`${base}/old`).execute(request(), { signal });
    expect(r).toEqual({
      kind: 'Rejected',
      message: `POST ${base}/old answered 307 (redirects are not followed: set url to the final address)`,
    });
    expect(received).toHaveLength(1);
  });

  it('the controller stopping ends the call: Unavailable, maybe sent', async () => {
    reply = () => undefined;
    const ac = new AbortController();
    const pending = webhook(`${base}/held`).execute(request(), { signal: ac.signal });
    while (received.length === 0) await new Promise((r) => setTimeout(r, 10));
    ac.abort();
    expect(await pending).toEqual({
      kind: 'Unavailable',
      message: `POST ${base}/held stopped: the controller is stopping`,
      maybeSent: true,
    });
    server.closeAllConnections();
  });

  it('Retry-After: seconds or an HTTP date', () => {
    const now = Date.UTC(2026, 11, 5, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sat, 05 Dec 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
