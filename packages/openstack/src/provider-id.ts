// Node.spec.providerID / OpenStackMachine.spec.providerID: "openstack:///<uuid>", or
// "openstack://<region>/<uuid>" when CAPO's identityRef carries a region (CAPO v0.11+).
import * as E from 'fp-ts/lib/Either.js';

/**
 * A Node's or Machine's providerID decoded: the Nova server it names and, optionally, the region.
 */
export interface OpenStackProviderID {
  /** The Nova server UUID, lower-cased. */
  readonly serverId: string;
  /** Present only in the openstack://<region>/<uuid> form. */
  readonly region: string | undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIX = 'openstack://';

/**
 * Decodes `openstack:///<uuid>` or `openstack://<region>/<uuid>`; Left carries a message naming
 * what is wrong (scheme, missing slash, non-UUID id, bad region characters).
 */
export function parseProviderID(providerID: string): E.Either<string, OpenStackProviderID> {
  const shown = JSON.stringify(
    providerID.length > 200 ? `${providerID.slice(0, 200)}...` : providerID,
  );
  if (!providerID.startsWith(PREFIX)) {
    return E.left(
      `providerID ${shown}: expected the openstack:// scheme (openstack:///<server-uuid> or openstack://<region>/<server-uuid>)`,
    );
  }
  const rest = providerID.slice(PREFIX.length);
  const parts = rest.split('/');
  if (parts.length === 1) {
    return E.left(
      `providerID ${shown}: the server uuid must follow a slash (openstack:///<server-uuid>, note the three slashes)`,
    );
  }
  if (parts.length !== 2) {
    return E.left(
      `providerID ${shown}: expected exactly openstack://<region>/<server-uuid> or openstack:///<server-uuid>`,
    );
  }
  const [region, id] = parts as [string, string];
  if (!UUID.test(id))
    return E.left(`providerID ${shown}: server id ${JSON.stringify(id)} is not a UUID`);
  if (region !== '' && !/^[A-Za-z0-9._-]+$/.test(region)) {
    return E.left(
      `providerID ${shown}: region ${JSON.stringify(region)} contains invalid characters`,
    );
  }
  return E.right({ serverId: id.toLowerCase(), region: region === '' ? undefined : region });
}

/** Renders the providerID string back, in the three-slash form when there is no region. */
export function formatProviderID(p: OpenStackProviderID): string {
  return `${PREFIX}${p.region ?? ''}/${p.serverId}`;
}
