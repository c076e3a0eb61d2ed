/**
 * Lists a collection page by page (limit/continue), so work grows with the cluster only by pages.
 * `fetchPage` is the generated client-node list call, bound to its arguments.
 */
export interface ListPage<T> {
  items: T[];
  metadata?: { _continue?: string; resourceVersion?: string };
}

export async function listAll<T>(
  fetchPage: (args: { limit: number; _continue?: string }) => Promise<ListPage<T>>,
  pageSize = 500,
): Promise<{ items: T[]; resourceVersion: string | undefined; pages: number }> {
  const items: T[] = [];
  let cont: string | undefined;
  let pages = 0;
  let resourceVersion: string | undefined;
  do {
    const page = await fetchPage(cont ? { limit: pageSize, _continue: cont } : { limit: pageSize });
    pages++;
    items.push(...page.items);
    resourceVersion ??= page.metadata?.resourceVersion;
    cont = page.metadata?._continue || undefined;
  } while (cont);
  return { items, resourceVersion, pages };
}
