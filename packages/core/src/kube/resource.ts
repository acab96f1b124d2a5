// A resource type: enough of the discovery information to build REST paths without a
// discovery round trip (like kube-rs' ApiResource).

/**
 * Enough discovery information about a kind to build its REST paths without asking the apiserver.
 */
export interface ResourceType {
  /** API group; '' for the core group. */
  group: string;
  /** API version within the group, e.g. `v1`. */
  version: string;
  /** Kind name, e.g. `Node`. */
  kind: string;
  /** lowercase plural used in URLs, e.g. "nodes". */
  plural: string;
  /** True when objects live in a namespace (paths then need one for a named object). */
  namespaced: boolean;
}

/** `group/version`, or just the version for the core group (e.g. `v1`, `apps/v1`). */
export function apiVersionOf(rt: ResourceType): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

// DNS-1123 subdomain (names) and label (namespaces); checked so a bad name gives a clear
// error instead of an odd URL.
const NAME = /^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/i;

function checkSegment(what: string, value: string): string {
  if (!NAME.test(value) || value.length > 253) {
    throw new TypeError(`${what} must be a DNS-1123 name (got ${JSON.stringify(value)})`);
  }
  return encodeURIComponent(value);
}

/** Optional parts of a resource path; names are checked to be DNS-1123 names. */
export interface PathParts {
  /** Namespace; only allowed for namespaced kinds (a TypeError otherwise). */
  namespace?: string | undefined;
  /** Object name; omit for a collection path. */
  name?: string | undefined;
  /** Subresource such as `status` or `eviction`; needs a name. */
  subresource?: string | undefined;
}

/** /api/v1/namespaces/ns/pods/name/status and friends. */
export function resourcePath(rt: ResourceType, parts: PathParts = {}): string {
  const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
  let path = base;
  if (rt.namespaced && parts.namespace)
    path += `/namespaces/${checkSegment('namespace', parts.namespace)}`;
  if (!rt.namespaced && parts.namespace) {
    throw new TypeError(
      `${rt.kind} is cluster-scoped; namespace ${JSON.stringify(parts.namespace)} is not allowed`,
    );
  }
  path += `/${rt.plural}`;
  if (parts.name !== undefined) {
    if (rt.namespaced && !parts.namespace) {
      throw new TypeError(
        `${rt.kind} is namespaced; a namespace is required for ${JSON.stringify(parts.name)}`,
      );
    }
    path += `/${checkSegment('name', parts.name)}`;
  }
  if (parts.subresource) {
    if (parts.name === undefined)
      throw new TypeError(`subresource ${parts.subresource} needs a name`);
    path += `/${checkSegment('subresource', parts.subresource)}`;
  }
  return path;
}

/** core/v1 Nodes (cluster-scoped). */
export const NodeResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
};
/** core/v1 Pods (namespaced). */
export const PodResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
};
/** core/v1 Namespaces (cluster-scoped). */
export const NamespaceResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
/** core/v1 ConfigMaps (namespaced). */
export const ConfigMapResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
/** coordination.k8s.io/v1 Leases (namespaced). */
export const LeaseResource: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};
/** events.k8s.io/v1 Events (namespaced). */
export const EventResource: ResourceType = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};
/** policy/v1 Eviction, the subresource through which a Pod is evicted. */
export const EvictionResource: ResourceType = {
  group: 'policy',
  version: 'v1',
  kind: 'Eviction',
  plural: 'evictions',
  namespaced: true,
};

/** A custom resource type; plural defaults to lowercase kind + "s" (override when irregular). */
export function customResource(o: {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  namespaced: boolean;
}): ResourceType {
  return { ...o, plural: o.plural ?? `${o.kind.toLowerCase()}s` };
}
