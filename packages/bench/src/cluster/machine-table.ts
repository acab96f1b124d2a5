// Which worker Machines have no nodeRef yet, read as a server-side Table (the CRD's printer
// columns, no objects): while 10,000 Machines are being linked, listing them as JSON (~10 KB
// each, 100 MB a poll) took ~13 s of the apiserver's and this process's CPU per poll, on the
// very cores the Cluster API manager needed; the Table is ~150 bytes a row.
import type { ControlPlane } from '@noderepair/envtest';
import { adminGet } from './admin-get.js';

interface Table {
  kind?: string;
  columnDefinitions?: Array<{ name: string }>;
  rows?: Array<{ cells?: unknown[] }>;
}

/** Names of the rows whose `Node Name` column is empty (pure). */
export function unlinkedFromTable(body: string): string[] {
  const t = JSON.parse(body) as Table;
  if (t.kind !== 'Table')
    throw new Error(`expected a meta.k8s.io Table, got kind ${String(t.kind)}`);
  const cols = (t.columnDefinitions ?? []).map((c) => c.name);
  const name = cols.indexOf('Name');
  const node = cols.indexOf('Node Name');
  if (name < 0 || node < 0)
    throw new Error(
      `Machine table: expected columns "Name" and "Node Name", got ${cols.join(', ')}`,
    );
  return (t.rows ?? []).filter((r) => !r.cells?.[node]).map((r) => String(r.cells?.[name] ?? ''));
}

/** The namespaced Machine list as a Table, as envtest's admin: the names without a nodeRef. */
export async function unlinkedMachines(
  cp: ControlPlane,
  namespace: string,
  labelSelector: string,
): Promise<string[]> {
  const q = new URLSearchParams({ labelSelector, includeObject: 'None' });
  const body = await adminGet(
    cp,
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/machines?${q}`,
    {
      what: 'list Machines as Table',
      timeoutMs: 120_000,
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    },
  );
  return unlinkedFromTable(body);
}
