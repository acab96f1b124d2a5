// FAKE Nova's servers API over HTTP: microversion negotiation as Nova does it, GET and DELETE
// of a server, POST /action (the state machine is FakeCompute's), server metadata and the
// instance-action records; other projects' servers are hidden (404) as from a non-admin.
import { randomUUID } from 'node:crypto';
import { novaStatus, type FakeCompute, type FakeServerState } from './fake-compute.js';
import { fault, json, type RawRequest, type RawResponse, type Routed } from './http.js';
import type { FakeKeystone } from './keystone.js';
import type { FakeInstanceActions } from './nova-instance-actions.js';
import type { FakeInterface } from './options.js';

const MIN_MINOR = 1;

export function parseMinor(v: string): number | undefined {
  const m = /^2\.(\d+)$/.exec(v);
  return m ? Number(m[1]) : undefined;
}

/** The compute endpoints of a FakeOpenStack, one per region and interface. */
export class FakeNova {
  readonly #compute: FakeCompute;
  readonly #keystone: FakeKeystone;
  readonly #actions: FakeInstanceActions;
  readonly #regions: readonly string[];
  readonly #maxMinor: number;

  constructor(
    compute: FakeCompute,
    keystone: FakeKeystone,
    actions: FakeInstanceActions,
    regions: readonly string[],
    maxMinor: number,
  ) {
    this.#compute = compute;
    this.#keystone = keystone;
    this.#actions = actions;
    this.#regions = regions;
    this.#maxMinor = maxMinor;
  }

  /** A request under /compute/{region}/{interface}/v2.1. */
  route(req: RawRequest, base: { method: string; path: string }): Routed {
    const path = base.path;
    const m = /^\/compute\/([^/]+)\/(public|internal|admin)\/v2\.1(\/.*)?$/.exec(path);
    if (!m)
      return {
        res: fault(404, 'itemNotFound', 'The resource could not be found.'),
        entry: { ...base, service: 'unknown' },
      };
    const region = m[1] as string;
    const iface = m[2] as FakeInterface;
    const rest = m[3] ?? '';
    const sm =
      /^\/servers\/([^/]+)(\/action|\/metadata(?:\/([^/]+))?|\/os-instance-actions(?:\/([^/]+))?)?$/.exec(
        rest,
      );
    const isAction = sm?.[2] === '/action';
    const isInstanceActions = sm?.[2]?.startsWith('/os-instance-actions') ?? false;
    const isMetadata = sm?.[2]?.startsWith('/metadata') ?? false;
    const metadataKey = sm?.[3] === undefined ? undefined : decodeURIComponent(sm[3]);
    const serverId = sm ? decodeURIComponent(sm[1] as string) : undefined;
    let action: string | undefined;
    let rebootType: string | undefined;
    let body: Record<string, unknown> | undefined;
    if ((isAction && req.method === 'POST') || (isMetadata && req.method === 'PUT')) {
      try {
        const parsed = JSON.parse(req.body) as unknown;
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      action = isAction && body ? Object.keys(body)[0] : undefined;
      const t = (body?.reboot as { type?: unknown } | undefined)?.type;
      rebootType = typeof t === 'string' ? t : undefined;
    }
    const mvHeader = req.headers.get('openstack-api-version');
    const entry = {
      ...base,
      service: 'compute' as const,
      region,
      interface: iface,
      serverId,
      action,
      rebootType,
      microversion: mvHeader ?? undefined,
    };
    if (!this.#regions.includes(region))
      return { res: fault(404, 'itemNotFound', 'Unknown region endpoint'), entry };

    const token = this.#keystone.validateForService(req.headers.get('x-auth-token') ?? undefined);
    if (!token)
      return {
        res: json(401, {
          error: {
            code: 401,
            message: 'The request you have made requires authentication.',
            title: 'Unauthorized',
          },
        }),
        entry,
      };

    // Microversion negotiation, as Nova does it: absent -> 2.1; "latest" -> the maximum.
    let minor = MIN_MINOR;
    if (mvHeader !== null) {
      const mm = /^compute\s+(\S+)$/i.exec(mvHeader.trim());
      if (!mm)
        return { res: fault(400, 'badRequest', 'Invalid OpenStack-API-Version header'), entry };
      const v = mm[1] as string;
      const parsed = v === 'latest' ? this.#maxMinor : parseMinor(v);
      if (parsed === undefined)
        return { res: fault(400, 'badRequest', `Invalid format for API version ${v}`), entry };
      if (parsed < MIN_MINOR || parsed > this.#maxMinor) {
        return {
          res: fault(
            406,
            'computeFault',
            `Version 2.${parsed} is not supported by the API. Minimum is 2.${MIN_MINOR} and maximum is 2.${this.#maxMinor}.`,
          ),
          entry,
        };
      }
      minor = parsed;
    }
    // Real Nova answers every request with both version headers and a request id.
    const requestId = `req-${randomUUID()}`;
    const mvHeaders = {
      'openstack-api-version': `compute 2.${minor}`,
      'x-openstack-nova-api-version': `2.${minor}`,
      vary: 'OpenStack-API-Version, X-OpenStack-Nova-API-Version',
      'x-openstack-request-id': requestId,
      'x-compute-request-id': requestId,
    };
    if (!sm || serverId === undefined)
      return {
        res: fault(404, 'itemNotFound', 'The resource could not be found.', mvHeaders),
        entry,
      };
    const live = this.#compute.get(serverId);
    // From 2.21 Nova lists a deleted server's actions (read_deleted=yes); anything else 404s.
    const gone = minor >= 21 && isInstanceActions ? this.#compute.deleted.get(serverId) : undefined;
    const s = live ?? gone;
    // Nova hides other projects' servers from non-admins: 404, not 403.
    if (!s || s.projectId !== token.projectId) {
      return {
        res: fault(404, 'itemNotFound', `Instance ${serverId} could not be found.`, mvHeaders),
        entry,
      };
    }
    if (isInstanceActions)
      return {
        res: this.#actions.reply(s, req.method, sm[4], minor, mvHeaders),
        entry,
      };
    if (isMetadata)
      return {
        res: this.#metadata(s, req.method, metadataKey, body, token.admin, mvHeaders),
        entry,
      };
    if (!sm[2] && req.method === 'DELETE') {
      // Nova: 204, then task_state "deleting" until compute has deleted it, then 404; a
      // locked server answers 409 to non-admins.
      if (s.locked && !token.admin)
        return {
          res: fault(409, 'conflictingRequest', `Instance ${s.id} is locked`, mvHeaders),
          entry,
        };
      // nova-api records the delete before its 204 (compute/api.py _delete).
      this.#actions.record(s.id, 'delete', requestId, token.userId);
      this.#compute.delete(s);
      return { res: { status: 204, headers: mvHeaders, body: '' }, entry };
    }
    if (!sm[2]) {
      if (req.method !== 'GET')
        return { res: fault(405, 'badRequest', 'Method not allowed', mvHeaders), entry };
      const server: Record<string, unknown> = {
        id: s.id,
        name: s.name,
        status: novaStatus(s),
        'OS-EXT-STS:task_state': s.taskState,
        'OS-EXT-STS:vm_state': s.vmState,
        'OS-EXT-STS:power_state': s.vmState === 'active' ? 1 : 4,
        updated: new Date(s.updatedAt).toISOString().replace(/\.\d+Z$/, 'Z'),
        image: { id: s.imageRef },
      };
      if (minor >= 9) server.locked = s.locked;
      return { res: json(200, { server }, mvHeaders), entry };
    }
    if (req.method !== 'POST')
      return { res: fault(405, 'badRequest', 'Method not allowed', mvHeaders), entry };
    if (!body) return { res: fault(400, 'badRequest', 'Malformed request body', mvHeaders), entry };
    const out = this.#compute.act(s, body, { admin: token.admin });
    if (out.status === 202) {
      this.#actions.record(s.id, action, requestId, token.userId);
      return { res: { status: 202, headers: mvHeaders, body: '' }, entry };
    }
    return { res: fault(out.status, out.fault, out.message, mvHeaders), entry };
  }

  /** GET /servers/{id}/metadata and PUT /servers/{id}/metadata/{key}, as Nova documents them. */
  #metadata(
    s: FakeServerState,
    method: string,
    key: string | undefined,
    body: Record<string, unknown> | undefined,
    admin: boolean,
    headers: Record<string, string>,
  ): RawResponse {
    if (method === 'GET' && key === undefined)
      return json(200, { metadata: { ...s.metadata } }, headers);
    if (method === 'GET') {
      const v = s.metadata[key as string];
      return v === undefined
        ? fault(404, 'itemNotFound', 'Metadata item was not found', headers)
        : json(200, { meta: { [key as string]: v } }, headers);
    }
    if (method !== 'PUT' || key === undefined)
      return fault(405, 'badRequest', 'Method not allowed', headers);
    const meta = body?.meta as Record<string, unknown> | undefined;
    const keys = meta ? Object.keys(meta) : [];
    if (!meta || keys.length !== 1 || keys[0] !== key || typeof meta[key] !== 'string') {
      return fault(400, 'badRequest', 'Request body and URI mismatch', headers);
    }
    if (key.length > 255 || (meta[key] as string).length > 255)
      return fault(400, 'badRequest', 'Metadata key or value too long', headers);
    if (s.policyDenied)
      return fault(403, 'forbidden', 'Policy does not allow the metadata update.', headers);
    if (s.locked && !admin)
      return fault(409, 'conflictingRequest', `Instance ${s.id} is locked`, headers);
    const busy = this.#compute.metadataConflict(s);
    if (busy !== undefined && busy.status !== 202)
      return fault(busy.status, busy.fault, busy.message, headers);
    s.metadata[key] = meta[key] as string;
    return json(200, { meta: { [key]: meta[key] } }, headers);
  }
}
