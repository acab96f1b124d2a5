// Finalizers: pure list edits plus safe add/remove that patch only metadata.finalizers
// with an optimistic lock, so a concurrent edit fails as ConflictError (and is retried by
// the controller) instead of silently dropping someone else's finalizer.
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject } from '../../kube/object.js';
import type { ResourceType } from '../../kube/resource.js';

/** True when the object carries the finalizer. */
export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata?.finalizers?.includes(finalizer) ?? false;
}

/**
 * True once deletion was requested (metadata.deletionTimestamp is set) while finalizers hold the
 * object.
 */
export function isBeingDeleted(obj: KubeObject): boolean {
  return Boolean(obj.metadata?.deletionTimestamp);
}

function lockedTarget(
  obj: KubeObject,
  what: string,
): { name: string; namespace: string | undefined; resourceVersion: string } {
  const name = obj.metadata?.name;
  const resourceVersion = obj.metadata?.resourceVersion;
  if (!name || !resourceVersion)
    throw new TypeError(
      `${what}: object needs metadata.name and metadata.resourceVersion (read it from the API first)`,
    );
  return { name, namespace: obj.metadata?.namespace, resourceVersion };
}

/** Adds the finalizer unless present; returns the object as stored. */
export async function addFinalizer<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  obj: T,
  finalizer: string,
): Promise<T> {
  if (hasFinalizer(obj, finalizer)) return obj;
  const { name, namespace, resourceVersion } = lockedTarget(obj, 'addFinalizer');
  const list = obj.metadata?.finalizers;
  const ops =
    list && list.length > 0
      ? [{ op: 'add' as const, path: '/metadata/finalizers/-', value: finalizer }]
      : [{ op: 'add' as const, path: '/metadata/finalizers', value: [finalizer] }];
  return client.patch<T>(rt, name, { type: 'json', ops, resourceVersion }, { namespace });
}

/** Removes the finalizer if present; returns the object as stored. */
export async function removeFinalizer<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  obj: T,
  finalizer: string,
): Promise<T> {
  if (!hasFinalizer(obj, finalizer)) return obj;
  const { name, namespace, resourceVersion } = lockedTarget(obj, 'removeFinalizer');
  const rest = (obj.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
  return client.patch<T>(
    rt,
    name,
    {
      type: 'json',
      ops: [{ op: 'replace', path: '/metadata/finalizers', value: rest }],
      resourceVersion,
    },
    { namespace },
  );
}
