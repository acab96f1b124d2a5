// Pure request building shared by adapters: query strings, patch content types, bodies.
import type {
  DeleteOptions,
  ListOptions,
  KubePatch,
  WatchOptions,
  WriteOptions,
} from './client.js';

export type Query = Record<string, string | undefined>;

export function listQuery(o: ListOptions = {}): Query {
  return {
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    limit: o.limit === undefined ? undefined : String(o.limit),
    continue: o.continue,
    resourceVersion: o.resourceVersion,
    resourceVersionMatch: o.resourceVersionMatch,
  };
}

export function watchQuery(o: WatchOptions = {}): Query {
  return {
    watch: 'true',
    labelSelector: o.labelSelector,
    fieldSelector: o.fieldSelector,
    resourceVersion: o.resourceVersion,
    allowWatchBookmarks: o.allowWatchBookmarks ? 'true' : undefined,
    timeoutSeconds: o.timeoutSeconds === undefined ? undefined : String(o.timeoutSeconds),
  };
}

export function writeQuery(o: WriteOptions & { force?: boolean | undefined } = {}): Query {
  return {
    fieldManager: o.fieldManager,
    dryRun: o.dryRun ? 'All' : undefined,
    force: o.force ? 'true' : undefined,
  };
}

export function queryString(q: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
  const s = params.toString();
  return s ? `?${s}` : '';
}

export const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

export function patchContentType(p: KubePatch): string {
  switch (p.type) {
    case 'merge':
      return 'application/merge-patch+json';
    case 'json':
      return 'application/json-patch+json';
    case 'strategic':
      return 'application/strategic-merge-patch+json';
  }
}

/** The patch body with the resourceVersion precondition folded in. */
export function patchBody(p: KubePatch): unknown {
  if (p.type === 'json') {
    return p.resourceVersion === undefined
      ? p.ops
      : // Setting resourceVersion (rather than a `test` op) makes the API server run its own
        // precondition check, so a stale version fails as 409 Conflict like every other write.
        [{ op: 'replace', path: '/metadata/resourceVersion', value: p.resourceVersion }, ...p.ops];
  }
  if (p.resourceVersion === undefined) return p.body;
  const meta = (p.body['metadata'] ?? {}) as Record<string, unknown>;
  return { ...p.body, metadata: { ...meta, resourceVersion: p.resourceVersion } };
}

export function deleteBody(
  o: Omit<DeleteOptions, 'namespace' | 'signal'> = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (o.preconditions) body['preconditions'] = o.preconditions;
  if (o.propagationPolicy) body['propagationPolicy'] = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) body['gracePeriodSeconds'] = o.gracePeriodSeconds;
  if (o.dryRun) body['dryRun'] = ['All'];
  return body;
}
