// What a reflector needs from the API: one list page and one watch. Bound to a resource
// type and selectors; tests can supply an in-memory implementation.
import type { KubeClient, WatchEvent } from '../../kube/client.js';
import type { KubeObject, ObjectList } from '../../kube/object.js';
import type { ResourceType } from '../../kube/resource.js';

export interface ListWatcher<T> {
  readonly description: string;
  list(opts: {
    limit?: number;
    continue?: string;
    resourceVersion?: string;
  }): Promise<ObjectList<T>>;
  watch(opts: {
    resourceVersion: string;
    allowWatchBookmarks: boolean;
    timeoutSeconds: number;
    signal: AbortSignal;
  }): AsyncIterable<WatchEvent<T>>;
}

export interface SelectorOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

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
