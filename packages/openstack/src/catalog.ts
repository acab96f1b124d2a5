// Keystone's service catalog and the choice of one endpoint from it, by service type,
// interface and region. Pure, so every ambiguity has a unit test.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { EndpointInterface } from './clouds-yaml.js';

/** Codec of one endpoint in a Keystone token's catalog: interface, URL and optional region. */
export const CatalogEndpoint = t.intersection([
  t.type({ interface: t.string, url: t.string }),
  t.partial({
    region_id: t.union([t.string, t.null]),
    region: t.union([t.string, t.null]),
    id: t.string,
  }),
]);
/** One endpoint of a catalog service, as decoded by the CatalogEndpoint codec. */
export type CatalogEndpoint = t.TypeOf<typeof CatalogEndpoint>;

/**
 * Codec of one service in a Keystone token's catalog: its type (for example `compute`) and
 * endpoints.
 */
export const CatalogService = t.intersection([
  t.type({ type: t.string, endpoints: t.array(CatalogEndpoint) }),
  t.partial({ name: t.string, id: t.string }),
]);
/** One service of the catalog, as decoded by the CatalogService codec. */
export type CatalogService = t.TypeOf<typeof CatalogService>;

/** Codec of the service catalog Keystone returns with a token. */
export const Catalog = t.array(CatalogService);
/** The decoded service catalog of a token. */
export type Catalog = t.TypeOf<typeof Catalog>;

/** Which endpoint to pick from a catalog (see selectEndpoint). */
export interface EndpointQuery {
  /** Catalog service type, for example `compute` for Nova. */
  readonly serviceType: string;
  /** Which of the service's interfaces to use (clouds.yaml `interface`). */
  readonly interface: EndpointInterface;
  /** When undefined the catalog must offer the service in exactly one region. */
  readonly region: string | undefined;
}

function regionOf(e: CatalogEndpoint): string | undefined {
  return e.region_id ?? e.region ?? undefined;
}

/** The endpoint URL without a trailing slash, or why there is none. */
export function selectEndpoint(catalog: Catalog, q: EndpointQuery): E.Either<string, string> {
  const services = catalog.filter((s) => s.type === q.serviceType);
  if (services.length === 0) {
    const types = [...new Set(catalog.map((s) => s.type))].sort();
    return E.left(
      `no "${q.serviceType}" service in the catalog (services: ${types.join(', ') || 'none'})`,
    );
  }
  const all = services.flatMap((s) => s.endpoints);
  const byInterface = all.filter((e) => e.interface === q.interface);
  if (byInterface.length === 0) {
    const ifaces = [...new Set(all.map((e) => e.interface))].sort();
    return E.left(
      `service "${q.serviceType}" has no ${q.interface} endpoint (interfaces: ${ifaces.join(', ')})`,
    );
  }
  const regions = [...new Set(byInterface.map(regionOf))];
  const wanted = q.region;
  let chosen: CatalogEndpoint[];
  if (wanted !== undefined) {
    chosen = byInterface.filter((e) => regionOf(e) === wanted);
    if (chosen.length === 0) {
      return E.left(
        `service "${q.serviceType}" has no ${q.interface} endpoint in region "${wanted}" (regions: ${regions.map(String).sort().join(', ')})`,
      );
    }
  } else {
    if (regions.length > 1) {
      return E.left(
        `service "${q.serviceType}" has ${q.interface} endpoints in several regions (${regions.map(String).sort().join(', ')}); set region_name in clouds.yaml`,
      );
    }
    chosen = byInterface;
  }
  const urls = [...new Set(chosen.map((e) => e.url.replace(/\/+$/, '')))];
  if (urls.length > 1) {
    return E.left(
      `service "${q.serviceType}" has ${urls.length} different ${q.interface} endpoints${wanted ? ` in region "${wanted}"` : ''}`,
    );
  }
  return E.right(urls[0] as string);
}
