import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { defaultRepairPolicy, type StormGuardPolicy } from '../health/policy.js';
import { stormGuard, type StormEntry } from '../health/storm-guard.js';
import { AutoRepairMetrics, countPhases, stormScope } from './metrics.js';

const entry = (name: string, zone: string, unhealthy: boolean): StormEntry => ({
  name,
  labels: { zone },
  signal: unhealthy ? 'unhealthy' : 'healthy',
  phase: undefined,
  wantsToStart: unhealthy,
});

describe('stormScope', () => {
  const base: StormGuardPolicy = {
    ...defaultRepairPolicy.stormGuard,
    maxUnhealthy: { percent: 100 },
    maxInFlight: 10,
  };
  const reasonOf = (policy: StormGuardPolicy, entries: StormEntry[]) =>
    [...stormGuard(entries, policy).verdicts.values()].find((v) => !v.admitted)?.reason ?? '';

  it("names which limit held a repair, from the storm guard's own reasons", () => {
    const fleet = reasonOf({ ...base, maxUnhealthy: { count: 1 } }, [
      entry('a', 'z1', true),
      entry('b', 'z2', true),
    ]);
    expect(stormScope(fleet)).toBe('fleet');
    const domain = reasonOf(
      { ...base, failureDomainLabel: 'zone', maxUnhealthyPerDomain: { count: 1 } },
      [entry('a', 'z1', true), entry('b', 'z1', true), entry('c', 'z2', false)],
    );
    expect(stormScope(domain)).toBe('failure-domain');
    const inFlight = reasonOf({ ...base, maxInFlight: 1 }, [
      entry('a', 'z1', true),
      entry('b', 'z2', true),
    ]);
    expect(stormScope(inFlight)).toBe('in-flight');
  });
});

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
