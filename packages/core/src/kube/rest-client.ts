// A KubeClient over any HTTP transport: the REST conventions (paths, verbs, content types,
// KubeStatus errors) live here once; adapters only supply authenticated HTTP.
import type {
  ApplyOptions,
  DeleteOptions,
  EvictOptions,
  GetOptions,
  KubeClient,
  ListOptions,
  NamespaceOption,
  KubePatch,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './client.js';
import { errorFromResponse, KubeConnectionError, RequestAbortedError } from './errors.js';
import type { KubeObject, ObjectList } from './object.js';
import {
  APPLY_CONTENT_TYPE,
  deleteBody,
  listQuery,
  patchBody,
  patchContentType,
  queryString,
  watchQuery,
  writeQuery,
} from './request.js';
import {
  apiVersionOf,
  EvictionResource,
  PodResource,
  resourcePath,
  type ResourceType,
} from './resource.js';
import { decodeWatchStream } from './watch-decoder.js';

/** One HTTP request to the apiserver, as RestKubeClient hands it to a transport. */
export interface HttpRequest {
  /** HTTP method; PATCH carries the patch type in contentType. */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** path + query string, relative to the server URL. */
  path: string;
  /** Request body (JSON, or YAML for server-side apply). */
  body?: string | undefined;
  /** Content-Type of the body. */
  contentType?: string | undefined;
  /** Aborting must end the request; the transport then rejects. */
  signal?: AbortSignal | undefined;
}

/** A buffered HTTP response. */
export interface HttpResponse {
  /** HTTP status code; non-2xx bodies hold a KubeStatus. */
  status: number;
  /** The whole response body as UTF-8 text (empty when there was none). */
  body: string;
}

/** A streamed HTTP response, used for watches. */
export interface HttpStream {
  /** HTTP status code; only 200 starts a watch. */
  status: number;
  /** the raw body; for non-2xx it holds the KubeStatus JSON. */
  body: AsyncIterable<Uint8Array>;
}

/**
 * Authenticated HTTP to one apiserver: the only thing an adapter supplies to RestKubeClient. Reject
 * (do not resolve) when no HTTP answer arrived.
 */
export interface HttpTransport {
  /** Sends a request and buffers the whole response. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** Sends a request and returns as soon as the status is known, streaming the body. */
  stream(req: HttpRequest): Promise<HttpStream>;
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(Buffer.from(c));
  return Buffer.concat(parts).toString('utf8');
}

function describe(verb: string, rt: ResourceType, name?: string, ns?: string): string {
  const where = ns ? `${ns}/` : '';
  return `${verb} ${rt.kind}${name !== undefined ? ` ${where}${name}` : ns ? ` in ${ns}` : ''}`;
}

/**
 * KubeClient on any HttpTransport: builds the REST paths, query strings and bodies, and turns
 * non-2xx answers into typed KubeApiErrors, transport failures into KubeConnectionError, aborts
 * into RequestAbortedError.
 */
export class RestKubeClient implements KubeClient {
  /** Wraps one authenticated transport; the client holds no other state. */
  constructor(private readonly http: HttpTransport) {}

  private async call<R>(req: HttpRequest, context: string): Promise<R> {
    // An aborted caller sends nothing: after a lost Lease not one more write may leave.
    if (req.signal?.aborted) throw new RequestAbortedError(context, { cause: req.signal.reason });
    let res: HttpResponse;
    try {
      res = await this.http.request(req);
    } catch (e) {
      // Transports report an abort in their own words (a DOMException, the signal's reason,
      // a destroyed socket): the signal says what happened.
      if (req.signal?.aborted || (e instanceof Error && e.name === 'AbortError'))
        throw new RequestAbortedError(context, { cause: e });
      throw new KubeConnectionError(`${context}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    if (res.status < 200 || res.status >= 300)
      throw errorFromResponse(res.status, res.body, context);
    return (res.body ? JSON.parse(res.body) : undefined) as R;
  }

  /** GET of one object or subresource; see KubeClient.get. */
  async get<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    opts: GetOptions = {},
  ): Promise<T> {
    const path = resourcePath(rt, {
      namespace: opts.namespace,
      name,
      subresource: opts.subresource,
    });
    return this.call<T>(
      { method: 'GET', path, signal: opts.signal },
      describe('get', rt, name, opts.namespace),
    );
  }

  /**
   * One page of a list; items get apiVersion and kind filled in, and a missing `items` becomes an
   * empty array.
   */
  async list<T extends KubeObject>(
    rt: ResourceType,
    opts: ListOptions = {},
  ): Promise<ObjectList<T>> {
    const path = resourcePath(rt, { namespace: opts.namespace }) + queryString(listQuery(opts));
    const list = await this.call<ObjectList<T>>(
      { method: 'GET', path, signal: opts.signal },
      describe('list', rt, undefined, opts.namespace),
    );
    // Items in a list carry no apiVersion/kind on the wire; restore them so every object
    // a caller sees is self-describing (same as a get).
    const apiVersion = apiVersionOf(rt);
    for (const item of list.items ?? []) {
      item.apiVersion ??= apiVersion;
      item.kind ??= rt.kind;
    }
    list.items ??= [];
    list.metadata ??= {};
    return list;
  }

  /**
   * Streams watch events. Ends quietly on abort; a failed connection is a KubeConnectionError, a
   * non-200 answer a typed KubeApiError.
   */
  async *watch<T extends KubeObject>(
    rt: ResourceType,
    opts: WatchOptions = {},
  ): AsyncGenerator<WatchEvent<T>> {
    const path = resourcePath(rt, { namespace: opts.namespace }) + queryString(watchQuery(opts));
    const context = describe('watch', rt, undefined, opts.namespace);
    let stream: HttpStream;
    try {
      stream = await this.http.stream({ method: 'GET', path, signal: opts.signal });
    } catch (e) {
      if (opts.signal?.aborted) return;
      throw new KubeConnectionError(`${context}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    if (stream.status !== 200)
      throw errorFromResponse(stream.status, await readAll(stream.body), context);
    try {
      yield* decodeWatchStream<T>(stream.body);
    } catch (e) {
      if (opts.signal?.aborted) return;
      if (e instanceof Error && e.name === 'WatchDecodeError') throw e;
      throw new KubeConnectionError(`${context}: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
  }

  /** POST of a new object; apiVersion and kind are taken from the resource type. */
  async create<T extends KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: WriteOptions = {},
  ): Promise<T> {
    const namespace = opts.namespace ?? obj.metadata?.namespace;
    const path = resourcePath(rt, { namespace }) + queryString(writeQuery(opts));
    const body = JSON.stringify({ apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj });
    return this.call<T>(
      { method: 'POST', path, body, contentType: 'application/json', signal: opts.signal },
      describe('create', rt, obj.metadata?.name ?? obj.metadata?.generateName, namespace),
    );
  }

  /**
   * PUT of the whole object; `metadata.resourceVersion`, when set, is a precondition (stale:
   * ConflictError). Needs `metadata.name`.
   */
  async update<T extends KubeObject>(
    rt: ResourceType,
    obj: T,
    opts: WriteOptions = {},
  ): Promise<T> {
    const { name, namespace } = this.identify(rt, obj, opts);
    const path =
      resourcePath(rt, { namespace, name, subresource: opts.subresource }) +
      queryString(writeQuery(opts));
    const body = JSON.stringify({ apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj });
    return this.call<T>(
      { method: 'PUT', path, body, contentType: 'application/json', signal: opts.signal },
      describe('update', rt, name, namespace),
    );
  }

  /**
   * Server-side apply as `fieldManager`; throws a TypeError without one. A conflict with another
   * manager is a ConflictError unless `force`.
   */
  async apply<T extends KubeObject>(rt: ResourceType, obj: T, opts: ApplyOptions): Promise<T> {
    if (!opts.fieldManager)
      throw new TypeError('apply: fieldManager is required for server-side apply');
    const { name, namespace } = this.identify(rt, obj, opts);
    const path =
      resourcePath(rt, { namespace, name, subresource: opts.subresource }) +
      queryString(writeQuery(opts));
    const body = JSON.stringify({ apiVersion: apiVersionOf(rt), kind: rt.kind, ...obj });
    return this.call<T>(
      { method: 'PATCH', path, body, contentType: APPLY_CONTENT_TYPE, signal: opts.signal },
      describe('apply', rt, name, namespace),
    );
  }

  /** PATCH with the content type of the patch's kind; see KubePatch. */
  async patch<T extends KubeObject>(
    rt: ResourceType,
    name: string,
    patch: KubePatch,
    opts: WriteOptions = {},
  ): Promise<T> {
    const path =
      resourcePath(rt, { namespace: opts.namespace, name, subresource: opts.subresource }) +
      queryString(writeQuery(opts));
    return this.call<T>(
      {
        method: 'PATCH',
        path,
        body: JSON.stringify(patchBody(patch)),
        contentType: patchContentType(patch),
        signal: opts.signal,
      },
      describe(`${patch.type}-patch`, rt, name, opts.namespace),
    );
  }

  /** DELETE with the given preconditions and propagation; see KubeClient.delete. */
  async delete(rt: ResourceType, name: string, opts: DeleteOptions = {}): Promise<void> {
    const path = resourcePath(rt, { namespace: opts.namespace, name });
    const { namespace: _ns, signal, ...rest } = opts;
    await this.call<unknown>(
      {
        method: 'DELETE',
        path,
        body: JSON.stringify(deleteBody(rest)),
        contentType: 'application/json',
        signal,
      },
      describe('delete', rt, name, opts.namespace),
    );
  }

  /**
   * Evicts a Pod through the policy/v1 eviction subresource; a PodDisruptionBudget refusal is a
   * TooManyRequestsError.
   */
  async evict(namespace: string, podName: string, opts: EvictOptions = {}): Promise<void> {
    const path =
      resourcePath(PodResource, { namespace, name: podName, subresource: 'eviction' }) +
      queryString(writeQuery({ dryRun: opts.dryRun }));
    const body = {
      apiVersion: apiVersionOf(EvictionResource),
      kind: 'Eviction',
      metadata: { name: podName, namespace },
      ...(opts.deleteOptions ? { deleteOptions: deleteBody(opts.deleteOptions) } : {}),
    };
    await this.call<unknown>(
      {
        method: 'POST',
        path,
        body: JSON.stringify(body),
        contentType: 'application/json',
        signal: opts.signal,
      },
      `evict Pod ${namespace}/${podName}`,
    );
  }

  private identify(
    rt: ResourceType,
    obj: KubeObject,
    opts: NamespaceOption,
  ): { name: string; namespace: string | undefined } {
    const name = obj.metadata?.name;
    if (!name) throw new TypeError(`${rt.kind}: metadata.name is required`);
    return { name, namespace: opts.namespace ?? obj.metadata?.namespace };
  }
}
