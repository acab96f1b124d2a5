// The fault ledger: each test records what it injected and what happened, as JSON lines in a
// directory the global setup provides; the global teardown sums them into the table that
// `pnpm test:chaos` prints and writes to reports/chaos-table.json.
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LedgerEntry {
  /** Fault family, e.g. "controller SIGKILL". */
  readonly fault: string;
  /** The variant (kill point, HTTP status, input kind). */
  readonly variant: string;
  readonly injected: number;
  readonly survived: number;
  /**
   * Double actions on a machine, counted from the provider's own record (provider-record.ts,
   * or a fake Nova's per-server action list); NOT_MEASURED where the row has no provider to
   * ask (a log scan, a pure decision, input decoding). Never a literal 0.
   */
  readonly doubleReboots: number | typeof NOT_MEASURED;
  readonly crashes: number;
  readonly fuzzInputs: number;
  /** Free text: what "survived" meant here. */
  readonly note?: string;
}

/** A ledger entry's doubleReboots when the row cannot measure double actions. */
export const NOT_MEASURED = 'not measured';

export function recordFault(dir: string, e: LedgerEntry): void {
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `ledger-${process.pid}.jsonl`), `${JSON.stringify(e)}\n`);
}

export function readLedger(dir: string): LedgerEntry[] {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.startsWith('ledger-') && f.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return files.flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as LedgerEntry),
  );
}

export interface TableRow {
  readonly fault: string;
  readonly variants: string[];
  readonly injected: number;
  readonly survived: number;
  /** The sum over the entries that measured double actions. */
  readonly doubleReboots: number;
  /** Entries that measured double actions, and those that did not. */
  readonly measured: number;
  readonly unmeasured: number;
  readonly crashes: number;
  readonly fuzzInputs: number;
}

/** Sums the entries per fault family, in first-seen order. */
export function summarise(entries: readonly LedgerEntry[]): { rows: TableRow[]; total: TableRow } {
  const rows = new Map<string, TableRow>();
  for (const e of entries) {
    const r = rows.get(e.fault) ?? {
      fault: e.fault,
      variants: [],
      injected: 0,
      survived: 0,
      doubleReboots: 0,
      measured: 0,
      unmeasured: 0,
      crashes: 0,
      fuzzInputs: 0,
    };
    const m = e.doubleReboots !== NOT_MEASURED;
    rows.set(e.fault, {
      fault: r.fault,
      variants: r.variants.includes(e.variant) ? r.variants : [...r.variants, e.variant],
      injected: r.injected + e.injected,
      survived: r.survived + e.survived,
      doubleReboots: r.doubleReboots + (m ? e.doubleReboots : 0),
      measured: r.measured + (m ? 1 : 0),
      unmeasured: r.unmeasured + (m ? 0 : 1),
      crashes: r.crashes + e.crashes,
      fuzzInputs: r.fuzzInputs + e.fuzzInputs,
    });
  }
  const list = [...rows.values()];
  const sum = (
    k:
      | 'injected'
      | 'survived'
      | 'doubleReboots'
      | 'measured'
      | 'unmeasured'
      | 'crashes'
      | 'fuzzInputs',
  ) => list.reduce((a, r) => a + r[k], 0);
  return {
    rows: list,
    total: {
      fault: 'TOTAL',
      variants: [],
      injected: sum('injected'),
      survived: sum('survived'),
      doubleReboots: sum('doubleReboots'),
      measured: sum('measured'),
      unmeasured: sum('unmeasured'),
      crashes: sum('crashes'),
      fuzzInputs: sum('fuzzInputs'),
    },
  };
}

/** The double-reboot cell: the measured sum, and how many entries did not measure it. */
export function doublesCell(r: TableRow): string {
  if (r.measured === 0) return NOT_MEASURED;
  return r.unmeasured === 0
    ? String(r.doubleReboots)
    : `${r.doubleReboots} (+${r.unmeasured} ${NOT_MEASURED})`;
}

/** The table as fixed-width text. */
export function formatTable(rows: readonly TableRow[], total: TableRow): string {
  const head = ['fault', 'injected', 'survived', 'double reboots', 'crashes', 'fuzz inputs'];
  const cells = [...rows, total].map((r) => [
    r.fault,
    String(r.injected),
    String(r.survived),
    doublesCell(r),
    String(r.crashes),
    String(r.fuzzInputs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) =>
    c.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join(' | ');
  const sep = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(head), sep, ...cells.slice(0, -1).map(line), sep, line(cells.at(-1) ?? [])].join(
    '\n',
  );
}
