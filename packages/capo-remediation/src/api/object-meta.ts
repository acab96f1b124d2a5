// Top-level object fields shared by both kinds. metadata stays an opaque object: the
// apiserver validates ObjectMeta itself and CRD schemas may only say `type: object` there.
import { s } from './schema/index.js';

export const typeMetaFields = {
  apiVersion: s.optional(
    s.string({
      description: 'APIVersion defines the versioned schema of this representation of an object.',
    }),
  ),
  kind: s.optional(
    s.string({
      description: 'Kind is a string value representing the REST resource this object represents.',
    }),
  ),
};

/**
 * An object's metadata as this package's types carry it: the usual ObjectMeta fields, typed,
 * and any other field kept as is (the API server validates metadata itself).
 */
export interface RemediationObjectMeta {
  /** The object's name. */
  name?: string;
  /** The object's namespace. */
  namespace?: string;
  /** Set by the API server; unique over the object's lifetime. */
  uid?: string;
  /** Set by the API server; send it back to make a write fail with 409 on a concurrent change. */
  resourceVersion?: string;
  /** Set by the API server; increases on each spec change. */
  generation?: number;
  /** The object's labels. */
  labels?: Record<string, string>;
  /** The object's annotations. */
  annotations?: Record<string, string>;
  /** Owners; a remediation is owned by exactly one Machine. */
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
  /** Finalizers; deletion waits until the list is empty. */
  finalizers?: string[];
  /** RFC 3339 time the object was created. */
  creationTimestamp?: string;
  /** RFC 3339 time deletion was requested; present while finalizers run. */
  deletionTimestamp?: string;
  /** Any other metadata field, kept unchanged. */
  [key: string]: unknown;
}

/** The apiserver only accepts `type: object` for top-level metadata. */
export function topLevelMetadata(): s.Field<RemediationObjectMeta, 'optional'> {
  const n = s.unknownObject();
  return s.optional({
    codec: n.codec as unknown as s.Node<RemediationObjectMeta>['codec'],
    openAPI: () => ({ type: 'object' }),
  });
}

/** Template metadata: labels and annotations copied onto the created object. */
export const templateMetadataNode = s.object(
  {
    labels: s.optional(
      s.stringMap({ description: 'Labels for the created OpenStackRemediation.' }),
    ),
    annotations: s.optional(
      s.stringMap({ description: 'Annotations for the created OpenStackRemediation.' }),
    ),
  },
  { description: 'Metadata for objects created from this template.' },
);
