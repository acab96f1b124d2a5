// What a reflector needs from the API: one list page and one watch. Bound to a resource
// type and selectors; tests can supply an in-memory implementation.
import type { KubeClient, WatchEvent } from '../../kube/client.js';
import type { KubeObject, ObjectList } from '../../kube/object.js';
import type { ResourceType } from '../../kube/resource.js';

/**
 * The list and watch calls a Reflector makes, bound to one resource type and its selectors; tests
 * can supply an in-memory one.
 */
export interface ListWatcher<T> {
  /** What is listed, for logs, e.g. `nodes in ns (app=x)`. */
  readonly description: string;
  /** One page of the list; `continue` continues a previous page. */
  list(opts: {
    limit?: number;
    continue?: string;
    resourceVersion?: string;
  }): Promise<ObjectList<T>>;
  /**
   * A watch from the given resourceVersion; ends when the server closes it or the signal aborts.
   */
  watch(opts: {
    resourceVersion: string;
    allowWatchBookmarks: boolean;
    timeoutSeconds: number;
    signal: AbortSignal;
  }): AsyncIterable<WatchEvent<T>>;
}

/** Which objects an informer caches: one namespace and/or label and field selectors. */
export interface SelectorOptions {
  /** Only this namespace; unset means every namespace (or a cluster-scoped kind). */
  namespace?: string;
  /** Label selector, e.g. `node-role.kubernetes.io/worker`. */
  labelSelector?: string;
  /** Field selector, e.g. `spec.nodeName=node-1`. */
  fieldSelector?: string;
}

/**
 * A ListWatcher for a resource type through a KubeClient, with the selectors applied to every list
 * and watch.
 */
export function listWatcherFor<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  sel: SelectorOptions = {},
): ListWatcher<T> {
  const scope = sel.namespace ? ` in ${sel.namespace}` : '';
  const filter = [sel.labelSelector, sel.fieldSelector].filter(Boolean).join(',');
  return {
    description: `${rt.plural}${scope}${filter ? ` (${filter})` : ''}`,
    list: (o) => client.list<T>(rt, { ...sel, ...o }),
    watch: (o) => client.watch<T>(rt, { ...sel, ...o }),
  };
}
