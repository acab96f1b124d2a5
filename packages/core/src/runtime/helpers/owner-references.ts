// Owner references: who owns an object (garbage collection) and who controls it.
import type { KubeObject, OwnerReference } from '../../kube/object.js';

/**
 * An owner reference to the owner; throws a TypeError unless it has apiVersion, kind, name and uid.
 */
export function ownerReferenceFor(
  owner: KubeObject,
  opts: { controller?: boolean; blockOwnerDeletion?: boolean } = {},
): OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) {
    throw new TypeError(
      `ownerReferenceFor: owner needs apiVersion, kind, metadata.name and metadata.uid (got ${kind ?? '?'} ${name ?? '?'} uid=${uid ?? 'missing'})`,
    );
  }
  return {
    apiVersion,
    kind,
    name,
    uid,
    ...(opts.controller ? { controller: true } : {}),
    ...(opts.blockOwnerDeletion ? { blockOwnerDeletion: true } : {}),
  };
}

/** Returns obj with the reference added or replaced (matched by uid). Pure. */
export function withOwnerReference<T extends KubeObject>(obj: T, ref: OwnerReference): T {
  const refs = obj.metadata?.ownerReferences ?? [];
  if (ref.controller) {
    const other = refs.find((r) => r.controller && r.uid !== ref.uid);
    if (other)
      throw new Error(
        `object ${obj.metadata?.name ?? '?'} is already controlled by ${other.kind} ${other.name}`,
      );
  }
  const next = [...refs.filter((r) => r.uid !== ref.uid), ref];
  return { ...obj, metadata: { ...obj.metadata, ownerReferences: next } };
}

/** The owner reference marked `controller: true`, if any. */
export function controllerReferenceOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** True when the owner (matched by uid) is the object's controller. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerReferenceOf(obj);
  return ref !== undefined && ref.uid === owner.metadata?.uid;
}

/** True when any owner reference of the object has the owner's uid. */
export function isOwnedBy(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata?.ownerReferences ?? []).some((r) => r.uid === owner.metadata?.uid);
}
