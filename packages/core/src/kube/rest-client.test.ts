import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  KubeConnectionError,
  NotFoundError,
  RequestAbortedError,
} from './errors.js';
import type { KubeClient } from './client.js';
import { listAll } from './pagination.js';
import { NodeResource, PodResource } from './resource.js';
import {
  RestKubeClient,
  type HttpRequest,
  type HttpResponse,
  type HttpStream,
  type HttpTransport,
} from './rest-client.js';

/** Records requests and answers from a script: the unit-level stand-in for the API server. */
class ScriptedTransport implements HttpTransport {
  readonly seen: HttpRequest[] = [];
  constructor(private readonly answer: (req: HttpRequest) => HttpResponse) {}
  async request(req: HttpRequest): Promise<HttpResponse> {
    this.seen.push(req);
    return this.answer(req);
  }
  async stream(req: HttpRequest): Promise<HttpStream> {
    this.seen.push(req);
    const r = this.answer(req);
    return {
      status: r.status,
      body: (async function* () {
        yield new TextEncoder().encode(r.body);
      })(),
    };
  }
}

const ok = (body: unknown): HttpResponse => ({ status: 200, body: JSON.stringify(body) });

describe('RestKubeClient', () => {
  it('server-side apply sends apply-patch with fieldManager and force', async () => {
    const t = new ScriptedTransport((r) => ok(JSON.parse(r.body ?? '{}')));
    const c = new RestKubeClient(t);
    await c.apply(
      NodeResource,
      { metadata: { name: 'n1', labels: { a: 'b' } } },
      { fieldManager: 'nr', force: true },
    );
    const req = t.seen[0]!;
    expect(req.method).toBe('PATCH');
    expect(req.contentType).toBe('application/apply-patch+yaml');
    expect(req.path).toBe('/api/v1/nodes/n1?fieldManager=nr&force=true');
    expect(JSON.parse(req.body!)).toMatchObject({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
    });
  });

  it('merge and JSON patches carry the resourceVersion precondition', async () => {
    const t = new ScriptedTransport(() => ok({}));
    const c = new RestKubeClient(t);
    await c.patch(
      PodResource,
      'p',
      { type: 'merge', body: { metadata: { labels: { x: 'y' } } }, resourceVersion: '42' },
      { namespace: 'ns' },
    );
    await c.patch(
      NodeResource,
      'n',
      { type: 'json', ops: [{ op: 'remove', path: '/spec/taints' }], resourceVersion: '7' },
      { subresource: 'status' },
    );
    expect(t.seen[0]!.contentType).toBe('application/merge-patch+json');
    expect(JSON.parse(t.seen[0]!.body!)).toEqual({
      metadata: { labels: { x: 'y' }, resourceVersion: '42' },
    });
    expect(t.seen[1]!.path).toBe('/api/v1/nodes/n/status');
    expect(JSON.parse(t.seen[1]!.body!)[0]).toEqual({
      op: 'replace',
      path: '/metadata/resourceVersion',
      value: '7',
    });
  });

  it('delete sends preconditions; errors are typed', async () => {
    const t = new ScriptedTransport((r) =>
      r.method === 'DELETE'
        ? {
            status: 409,
            body: JSON.stringify({
              kind: 'Status',
              code: 409,
              reason: 'Conflict',
              message: 'precondition failed',
            }),
          }
        : {
            status: 404,
            body: JSON.stringify({
              kind: 'Status',
              code: 404,
              reason: 'NotFound',
              message: 'nodes "x" not found',
            }),
          },
    );
    const c = new RestKubeClient(t);
    await expect(
      c.delete(NodeResource, 'x', { preconditions: { uid: 'u1' } }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(JSON.parse(t.seen[0]!.body!).preconditions).toEqual({ uid: 'u1' });
    await expect(c.get(NodeResource, 'x')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('evict posts a policy/v1 Eviction to the pod subresource', async () => {
    const t = new ScriptedTransport(() => ok({ kind: 'Status', status: 'Success' }));
    await new RestKubeClient(t).evict('ns', 'p1', { deleteOptions: { gracePeriodSeconds: 5 } });
    expect(t.seen[0]!.path).toBe('/api/v1/namespaces/ns/pods/p1/eviction');
    expect(JSON.parse(t.seen[0]!.body!)).toMatchObject({
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      deleteOptions: { gracePeriodSeconds: 5 },
    });
  });

  it('listAll follows continue tokens and restores apiVersion/kind', async () => {
    const t = new ScriptedTransport((r) => {
      const cont = new URLSearchParams(r.path.split('?')[1]).get('continue');
      return cont
        ? ok({ metadata: { resourceVersion: '11' }, items: [{ metadata: { name: 'b' } }] })
        : ok({
            metadata: { resourceVersion: '10', continue: 'tok' },
            items: [{ metadata: { name: 'a' } }],
          });
    });
    const { items, resourceVersion } = await listAll(new RestKubeClient(t), NodeResource, {
      limit: 1,
    });
    expect(items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(items[0]).toMatchObject({ apiVersion: 'v1', kind: 'Node' });
    expect(resourceVersion).toBe('11');
    expect(t.seen[1]!.path).toContain('continue=tok');
  });

  it('watch raises a typed error on a non-200 start', async () => {
    const t = new ScriptedTransport(() => ({
      status: 410,
      body: JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }),
    }));
    const it = new RestKubeClient(t).watch(NodeResource, {
      resourceVersion: '1',
      allowWatchBookmarks: true,
    });
    await expect(
      (async () => {
        for await (const _ of it) {
          /* drain */
        }
      })(),
    ).rejects.toThrow(/too old/);
    expect(t.seen[0]!.path).toBe(
      '/api/v1/nodes?watch=true&resourceVersion=1&allowWatchBookmarks=true',
    );
  });

  describe('the signal reaches every verb', () => {
    type Call = (c: KubeClient, signal: AbortSignal) => Promise<unknown>;
    const verbs: [string, Call][] = [
      ['get', (c, signal) => c.get(NodeResource, 'n', { signal })],
      ['list', (c, signal) => c.list(NodeResource, { signal })],
      ['create', (c, signal) => c.create(NodeResource, { metadata: { name: 'n' } }, { signal })],
      ['update', (c, signal) => c.update(NodeResource, { metadata: { name: 'n' } }, { signal })],
      [
        'apply',
        (c, signal) =>
          c.apply(NodeResource, { metadata: { name: 'n' } }, { fieldManager: 'nr', signal }),
      ],
      ['patch', (c, signal) => c.patch(NodeResource, 'n', { type: 'merge', body: {} }, { signal })],
      ['delete', (c, signal) => c.delete(NodeResource, 'n', { signal })],
      ['evict', (c, signal) => c.evict('ns', 'p', { signal })],
      ['listAll', (c, signal) => listAll(c, NodeResource, { signal })],
    ];

    it.each(verbs)('%s: the transport gets the signal', async (_verb, call) => {
      const t = new ScriptedTransport(() => ok({ metadata: {}, items: [] }));
      const signal = new AbortController().signal;
      await call(new RestKubeClient(t), signal);
      expect(t.seen).toHaveLength(1);
      expect(t.seen[0]!.signal).toBe(signal);
    });

    it.each(verbs)('%s: an aborted signal sends nothing', async (_verb, call) => {
      const t = new ScriptedTransport(() => ok({}));
      const ac = new AbortController();
      ac.abort();
      await expect(call(new RestKubeClient(t), ac.signal)).rejects.toBeInstanceOf(
        RequestAbortedError,
      );
      expect(t.seen).toEqual([]);
    });

    it.each(verbs)(
      '%s: aborted in flight -> RequestAbortedError, not a connection error',
      async (_verb, call) => {
        const ac = new AbortController();
        // A transport that answers only by failing once its request's signal aborts, in its
        // own words (as undici does with the signal's reason).
        const t: HttpTransport = {
          request: (req) =>
            new Promise((_resolve, reject) => {
              req.signal?.addEventListener('abort', () => reject(new Error('socket hang up')));
              queueMicrotask(() => ac.abort(new Error('leadership lost')));
            }),
          stream: () => Promise.reject(new Error('unused')),
        };
        const p = call(new RestKubeClient(t), ac.signal);
        await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
        await expect(p).rejects.not.toBeInstanceOf(KubeConnectionError);
        await expect(p).rejects.toMatchObject({ name: 'AbortError' });
      },
    );
  });
});
