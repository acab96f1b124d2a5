// docs/grafana/noderepair.json may only query metrics the controllers really register.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familyOf, metricsInPromQL } from './metric-names.js';
import { defaultMetricNames, registeredMetrics, repoRoot } from './reference.js';

interface Panel {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr?: string; refId?: string }>;
  panels?: Panel[];
  gridPos?: { h: number; w: number; x: number; y: number };
}

const dashboard = JSON.parse(
  readFileSync(join(repoRoot, 'docs/grafana/noderepair.json'), 'utf8'),
) as { uid: string; panels: Panel[]; templating: { list: Array<{ name: string; type: string }> } };

const allPanels = (ps: readonly Panel[]): Panel[] =>
  ps.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);

describe('metricsInPromQL', () => {
  it('finds metric names and skips functions, grouping labels, matchers and variables', () => {
    expect(
      metricsInPromQL(
        'histogram_quantile(0.95, sum by (le, controller) (rate(a_seconds_bucket{job=~"$job"}[$__rate_interval]))) / on (x) group_left b_total > bool 1e3',
      ).sort(),
    ).toEqual(['a_seconds_bucket', 'b_total']);
    expect(metricsInPromQL('sum(rate(c_total[5m])) by (phase)')).toEqual(['c_total']);
  });
});

describe('Grafana dashboard', () => {
  const panels = allPanels(dashboard.panels);
  const queries = panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })),
  );

  it('has query panels on a data source variable', () => {
    expect(
      dashboard.templating.list.some((v) => v.name === 'datasource' && v.type === 'datasource'),
    ).toBe(true);
    expect(queries.length).toBeGreaterThan(15);
    for (const p of panels.filter((p) => p.type !== 'row')) {
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
    }
    expect(new Set(panels.map((p) => p.title)).size).toBe(panels.length);
  });

  it('queries only metrics the code registers', async () => {
    const registered = await registeredMetrics();
    const known = new Set([...registered.map((m) => m.name), ...defaultMetricNames()]);
    const histograms = new Set(registered.filter((m) => m.type === 'histogram').map((m) => m.name));
    const unknown: string[] = [];
    for (const q of queries) {
      const names = metricsInPromQL(q.expr);
      expect(names.length, `${q.panel}: ${q.expr}`).toBeGreaterThan(0);
      for (const n of names)
        if (!known.has(familyOf(n, histograms))) unknown.push(`${q.panel}: ${n}`);
    }
    expect(unknown).toEqual([]);
  });

  it('shows every noderepair_* metric somewhere', async () => {
    const registered = await registeredMetrics();
    const histograms = new Set(registered.filter((m) => m.type === 'histogram').map((m) => m.name));
    // A histogram is shown through its _bucket/_sum/_count series.
    const used = new Set(
      queries.flatMap((q) => metricsInPromQL(q.expr)).map((n) => familyOf(n, histograms)),
    );
    const ours = registered
      .map((m) => m.name)
      .filter((n) => n.startsWith('noderepair_'));
    expect(ours.filter((n) => !used.has(n))).toEqual([]);
  });
});
