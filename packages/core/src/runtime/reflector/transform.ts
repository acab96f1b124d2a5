// Transforms run on every object before it is cached. Dropping managedFields (often half
// of an object's JSON) is the default; a projection keeps only what a controller reads.
import type { KubeObject } from '../../kube/object.js';

/**
 * Turns a listed or watched object into what the informer caches (e.g. a projection of the fields a
 * controller reads).
 */
export type Transform<T, U> = (obj: T) => U;

/** Default transform: removes metadata.managedFields in place (the parsed JSON is ours). */
export function dropManagedFields<T extends KubeObject>(obj: T): T {
  if (obj.metadata && 'managedFields' in obj.metadata) delete obj.metadata.managedFields;
  return obj;
}
