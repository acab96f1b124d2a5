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

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: Array<{
    apiVersion: string;
    kind: string;
    name: string;
    uid: string;
    controller?: boolean;
    blockOwnerDeletion?: boolean;
  }>;
  finalizers?: string[];
  creationTimestamp?: string;
  deletionTimestamp?: string;
  [key: string]: unknown;
}

/** The apiserver only accepts `type: object` for top-level metadata. */
export function topLevelMetadata(): s.Field<ObjectMeta, 'optional'> {
  const n = s.unknownObject();
  return s.optional({
    codec: n.codec as unknown as s.Node<ObjectMeta>['codec'],
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
