// Paginated list: follows metadata.continue so large lists never arrive as one response.
import type { KubeClient, ListOptions } from './client.js';
import type { KubeObject, ObjectList } from './object.js';
import type { ResourceType } from './resource.js';

/** Items per page listPages and listAll ask for when the caller gives no limit. */
export const DEFAULT_PAGE_SIZE = 500;

/** Yields pages; the last page's metadata.resourceVersion is the snapshot's version. */
export async function* listPages<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  opts: ListOptions = {},
): AsyncGenerator<ObjectList<T>> {
  let cont: string | undefined;
  do {
    const page: ObjectList<T> = await client.list<T>(rt, {
      ...opts,
      limit: opts.limit ?? DEFAULT_PAGE_SIZE,
      continue: cont,
      // resourceVersion only applies to the first page; later pages ride on the token.
      resourceVersion: cont ? undefined : opts.resourceVersion,
      resourceVersionMatch: cont ? undefined : opts.resourceVersionMatch,
    });
    yield page;
    cont = page.metadata.continue || undefined;
  } while (cont);
}

/** All items of a list and the resourceVersion to watch from. */
export async function listAll<T extends KubeObject>(
  client: KubeClient,
  rt: ResourceType,
  opts: ListOptions = {},
): Promise<{ items: T[]; resourceVersion: string }> {
  const items: T[] = [];
  let resourceVersion = '';
  for await (const page of listPages<T>(client, rt, opts)) {
    for (const item of page.items) items.push(item);
    resourceVersion = page.metadata.resourceVersion ?? resourceVersion;
  }
  return { items, resourceVersion };
}
