import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { AutoRepairMetrics, countPhases } from './metrics.js';

describe('AutoRepairMetrics', () => {
  it('counts nodes per phase, zero for phases nobody is in', async () => {
    const registry = new Registry();
    const m = new AutoRepairMetrics(registry);
    m.setPhaseCounts(countPhases(['Healthy', 'Healthy', 'Verifying']));
    const values = (await registry.getSingleMetric('noderepair_nodes')!.get()).values;
    const get = (phase: string) => values.find((v) => v.labels['phase'] === phase)?.value;
    expect(get('Healthy')).toBe(2);
    expect(get('Verifying')).toBe(1);
    expect(get('Failed')).toBe(0);
    m.setPhaseCounts(countPhases(['Healthy']));
    const again = (await registry.getSingleMetric('noderepair_nodes')!.get()).values;
    expect(again.find((v) => v.labels['phase'] === 'Verifying')?.value).toBe(0);
  });
});
