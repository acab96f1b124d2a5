// Server-side apply helper: builds a clean apply configuration (no server-owned fields)
// and applies it under one field manager, for the main resource or its status.
import type { KubeClient } from '../../kube/client.js';
import type { KubeObject, ObjectMeta } from '../../kube/object.js';
import { apiVersionOf, type ResourceType } from '../../kube/resource.js';

const SERVER_OWNED: (keyof ObjectMeta | 'selfLink')[] = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
];

/**
 * The object as an apply configuration: server-owned metadata removed and, for a main
 * resource apply, status removed (status is applied separately on its subresource).
 */
export function toApplyConfiguration<T extends KubeObject>(
  rt: ResourceType,
  obj: T,
  part: 'main' | 'status' = 'main',
): T {
  const meta: Record<string, unknown> = { ...(obj.metadata ?? {}) };
  for (const k of SERVER_OWNED) delete meta[k];
  const { status, ...rest } = obj as T & { status?: unknown };
  if (part === 'status') {
    return {
      apiVersion: apiVersionOf(rt),
      kind: rt.kind,
      metadata: {
        name: meta['name'],
        ...(meta['namespace'] ? { namespace: meta['namespace'] } : {}),
      },
      status,
    } as unknown as T;
  }
  return { ...rest, apiVersion: apiVersionOf(rt), kind: rt.kind, metadata: meta } as unknown as T;
}

/** Options of ServerSideApplier. */
export interface ApplierOptions {
  /** Field manager the applied fields are owned by; required. */
  fieldManager: string;
  /** take ownership of fields another manager owns (controllers usually do); default true. */
  force?: boolean;
}

/**
 * Applies desired state with server-side apply under one field manager, stripping server-owned
 * metadata first.
 */
export class ServerSideApplier {
  constructor(
    private readonly client: KubeClient,
    private readonly opts: ApplierOptions,
  ) {
    if (!opts.fieldManager) throw new TypeError('ServerSideApplier: fieldManager is required');
  }

  /**
   * Applies the object's main resource (status removed); `force` takes over fields other managers
   * own (default from the options, else true).
   */
  apply<T extends KubeObject>(
    rt: ResourceType,
    desired: T,
    force = this.opts.force ?? true,
  ): Promise<T> {
    return this.client.apply<T>(rt, toApplyConfiguration(rt, desired, 'main'), {
      fieldManager: this.opts.fieldManager,
      force,
    });
  }

  /** Applies only the object's status on the status subresource; `force` as in apply. */
  applyStatus<T extends KubeObject>(
    rt: ResourceType,
    desired: T,
    force = this.opts.force ?? true,
  ): Promise<T> {
    return this.client.apply<T>(rt, toApplyConfiguration(rt, desired, 'status'), {
      fieldManager: this.opts.fieldManager,
      force,
      subresource: 'status',
    });
  }
}
