// The core benchmarks print one JSON object per line on stdout; anything else on stdout
// (a library's stray log line) is kept apart rather than breaking the parse. Pure.
export function parseJsonLines(text: string): {
  records: Record<string, unknown>[];
  other: string[];
} {
  const records: Record<string, unknown>[] = [];
  const other: string[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '') continue;
    if (t.startsWith('{')) {
      try {
        const v: unknown = JSON.parse(t);
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          records.push(v as Record<string, unknown>);
          continue;
        }
      } catch {
        /* not JSON after all: kept below */
      }
    }
    other.push(t);
  }
  return { records, other };
}

/** The records whose `key` field equals `value` (e.g. bench = "workqueue"). */
export const withField = (
  records: readonly Record<string, unknown>[],
  key: string,
  value: string,
) => records.filter((r) => r[key] === value);
