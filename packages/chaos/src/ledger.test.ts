import { describe, expect, it } from 'vitest';
import { formatTable, NOT_MEASURED, summarise, type LedgerEntry } from './ledger.js';

const entry = (fault: string, doubleReboots: LedgerEntry['doubleReboots']): LedgerEntry => ({
  fault,
  variant: 'v',
  injected: 1,
  survived: 1,
  doubleReboots,
  crashes: 0,
  fuzzInputs: 0,
});

describe('the fault table', () => {
  it('says "not measured" instead of 0 for rows that measure no double actions', () => {
    const { rows, total } = summarise([
      entry('storm', 0),
      entry('storm', 2),
      entry('secret scan', NOT_MEASURED),
      entry('mixed', 0),
      entry('mixed', NOT_MEASURED),
    ]);
    const table = formatTable(rows, total);
    const row = (f: string) => table.split('\n').find((l) => l.startsWith(f)) ?? '';
    expect(row('storm')).toMatch(/\|\s+2 \|/);
    expect(row('secret scan')).toContain('not measured');
    expect(row('mixed')).toContain('0 (+1 not measured)');
    expect(row('TOTAL')).toContain('2 (+2 not measured)');
    expect(total).toMatchObject({ doubleReboots: 2, measured: 3, unmeasured: 2 });
  });
});
