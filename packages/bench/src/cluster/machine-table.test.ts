import { describe, expect, it } from 'vitest';
import { unlinkedFromTable } from './machine-table.js';

const table = (rows: unknown[][]) =>
  JSON.stringify({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    columnDefinitions: [{ name: 'Name' }, { name: 'Cluster' }, { name: 'Node Name' }],
    rows: rows.map((cells) => ({ cells })),
  });

describe('unlinkedFromTable', () => {
  it('names the Machines whose Node Name column is empty', () => {
    expect(
      unlinkedFromTable(
        table([
          ['w-1', 'bench', 'w-1'],
          ['w-2', 'bench', ''],
          ['w-3', 'bench', null],
        ]),
      ),
    ).toEqual(['w-2', 'w-3']);
  });

  it('rejects a body that is not a Table, or one without the columns it reads', () => {
    expect(() => unlinkedFromTable(JSON.stringify({ kind: 'MachineList', items: [] }))).toThrow(
      /expected a meta.k8s.io Table, got kind MachineList/,
    );
    expect(() =>
      unlinkedFromTable(JSON.stringify({ kind: 'Table', columnDefinitions: [{ name: 'Name' }] })),
    ).toThrow(/expected columns "Name" and "Node Name", got Name/);
  });
});
