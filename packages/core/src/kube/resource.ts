// A resource type: enough of the discovery information to build REST paths without a
// discovery round trip (like kube-rs' ApiResource).

export interface ResourceType {
  /** API group; '' for the core group. */
  group: string;
  version: string;
  kind: string;
  /** lowercase plural used in URLs, e.g. "nodes". */
  plural: string;
  namespaced: boolean;
}

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

export interface PathParts {
  namespace?: string | undefined;
  name?: string | undefined;
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

export const NodeResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
};
export const PodResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
};
export const NamespaceResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
export const ConfigMapResource: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
export const LeaseResource: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};
export const EventResource: ResourceType = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};
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
