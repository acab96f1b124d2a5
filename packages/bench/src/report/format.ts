// Number formatting and markdown tables (pure).

export const MiB = 1024 * 1024;

export function fmtMiB(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / MiB).toFixed(1)} MiB`;
}

export function fmtNum(n: number | undefined, unit = '', digits = 0): string {
  if (n === undefined || !Number.isFinite(n)) return 'n/a';
  const s = n.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return unit ? `${s} ${unit}` : s;
}

/**
 * "how many times theirs is ours" (theirs / ours), e.g. 3.2× means ours is 3.2 times smaller
 * or faster. Undefined when either is missing or ours is not positive (a zero or a negative
 * delay has no meaningful ratio: the cell then says so).
 */
export function ratio(theirs: number | undefined, ours: number | undefined): string {
  if (
    theirs === undefined ||
    ours === undefined ||
    !Number.isFinite(theirs) ||
    !Number.isFinite(ours)
  )
    return 'n/a';
  if (ours <= 0) return theirs > 0 ? 'ours ≤ 0' : 'n/a';
  const r = theirs / ours;
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(r >= 1 ? 1 : 2)}×`;
}

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A GitHub-flavoured markdown table; every row must have as many cells as the header. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  for (const [i, r] of rows.entries()) {
    if (r.length !== header.length)
      throw new Error(
        `markdownTable: row ${i} has ${r.length} cells, the header has ${header.length}`,
      );
  }
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
