// Metric names as they appear in the source and in PromQL, for the checks that the README
// and the Grafana dashboard name only metrics the controllers register.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Metric registrations: prom-client's `new Counter({ ..., name: '...' })` (and Gauge,
 * Histogram, Summary), and a hand-rolled counter class constructed with its name first
 * (capo-remediation's `new LabelledCounter('...', help)`).
 */
const REGISTRATIONS = [
  /new\s+(?:Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\s*\{[^}]*?\bname:\s*'([^']+)'/g,
  /new\s+\w*Counter\w*(?:<[^>]*>)?\(\s*'([a-z_:][a-z0-9_:]*)'/g,
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every metric name registered in packages/*\/src (tests excluded), with its file. */
export function metricRegistrationsInSource(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const packages = join(root, 'packages');
  for (const pkg of readdirSync(packages)) {
    const src = join(packages, pkg, 'src');
    let isDir = false;
    try {
      isDir = statSync(src).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) continue;
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      for (const re of REGISTRATIONS)
        for (const m of text.matchAll(re))
          if (!found.has(m[1]!)) found.set(m[1]!, file.slice(root.length));
    }
  }
  return found;
}

const KEYWORDS = new Set([
  'by',
  'without',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads. Grafana variables, label matchers, ranges and
 * grouping clauses are removed first; an identifier followed by `(` is a function.
 */
export function metricsInPromQL(expr: string): string[] {
  const stripped = expr
    .replace(/\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const rest = stripped.slice(m.index! + m[0].length);
    if (/^\s*\(/.test(rest)) continue; // a function call
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return [...new Set(names)];
}

/** A histogram's series (`_bucket`, `_sum`, `_count`) belong to the histogram's name. */
export function familyOf(series: string, histograms: ReadonlySet<string>): string {
  const m = /^(.*)_(bucket|sum|count)$/.exec(series);
  return m && histograms.has(m[1]!) ? m[1]! : series;
}
