// Which worker Machines have no nodeRef yet, read as a server-side Table (the CRD's printer
// columns, no objects): while 10,000 Machines are being linked, listing them as JSON (~10 KB
// each, 100 MB a poll) took ~13 s of the apiserver's and this process's CPU per poll, on the
// very cores the Cluster API manager needed; the Table is ~150 bytes a row.
import { request } from 'node:https';
import type { ControlPlane } from '@noderepair/envtest';

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

/** GET a namespaced Machine list as a Table, as envtest's admin. */
export function unlinkedMachines(
  cp: ControlPlane,
  namespace: string,
  labelSelector: string,
): Promise<string[]> {
  const q = new URLSearchParams({ labelSelector, includeObject: 'None' });
  const url = `${cp.server}/apis/cluster.x-k8s.io/v1beta2/namespaces/${namespace}/machines?${q}`;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: cp.caPem,
        headers: {
          authorization: `Bearer ${cp.adminToken}`,
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
        },
        timeout: 120_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(
              new Error(`list Machines as Table: HTTP ${res.statusCode}: ${body.slice(0, 200)}`),
            );
            return;
          }
          try {
            resolve(unlinkedFromTable(body));
          } catch (e) {
            reject(e as Error);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('list Machines as Table: timeout')));
    req.on('error', reject);
    req.end();
  });
}
