// A parser for the Prometheus text exposition format (what kube-apiserver's /metrics
// serves), enough to sum counters by label: samples with names, labels and values;
// comments, HELP and TYPE lines skipped; label values unescaped (\\, \", \n).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseLabels(s: string, line: string): [Record<string, string>, number] {
  // s starts just after '{'; returns the labels and the index just after '}'.
  const labels: Record<string, string> = {};
  let i = 0;
  for (;;) {
    while (s[i] === ' ' || s[i] === ',') i++;
    if (s[i] === '}') return [labels, i + 1];
    const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(s.slice(i));
    if (!m) throw new Error(`metrics: bad label name in line: ${line}`);
    const key = m[0];
    i += key.length;
    if (s[i] !== '=' || s[i + 1] !== '"')
      throw new Error(`metrics: expected ="value" after label ${key} in line: ${line}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = s[i];
      if (c === undefined) throw new Error(`metrics: unterminated label value in line: ${line}`);
      if (c === '"') {
        i++;
        break;
      }
      if (c === '\\') {
        const n = s[i + 1];
        value += n === 'n' ? '\n' : (n ?? '');
        i += 2;
        continue;
      }
      value += c;
      i++;
    }
    labels[key] = value;
  }
}

// Case-insensitive, as Prometheus parses values (Go's strconv.ParseFloat): prom-client's
// default metrics print NaN as "Nan" (nodejs_eventloop_lag_mean_seconds before its first sample).
function parseValue(v: string, line: string): number {
  const lower = v.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return NaN;
  const n = Number(v);
  if (v === '' || Number.isNaN(n))
    throw new Error(`metrics: bad sample value "${v}" in line: ${line}`);
  return n;
}

export function parsePrometheusText(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = NAME.exec(line);
    if (!m) throw new Error(`metrics: line does not start with a metric name: ${line}`);
    const name = m[0];
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const [l, end] = parseLabels(rest.slice(1), line);
      labels = l;
      rest = rest.slice(1 + end);
    }
    const [value] = rest.trim().split(/\s+/); // an optional timestamp may follow
    out.push({ name, labels, value: parseValue(value ?? '', line) });
  }
  return out;
}

/** Sums the samples of one metric by the value of one label (samples without it are skipped). */
export function sumBy(
  samples: readonly Sample[],
  name: string,
  label: string,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const k = s.labels[label];
    if (k === undefined) continue;
    out.set(k, (out.get(k) ?? 0) + s.value);
  }
  return out;
}
