import { describe, expect, it } from 'vitest';
import { allHeldByZoneStorm, stormHolds } from './status-table.js';

// The table as core's formatStatusTable prints it (columns 3 spaces apart).
const table = [
  'NAME        PHASE       CAUSE                 STEP   NEXT   REASON',
  'zone-a-01   Healthy     None                  -      -      healthy',
  'zone-c-02   Unhealthy   NetworkNotReady       -      30s    held: storm guard: 4 of 10 nodes unhealthy in topology.kubernetes.io/zone=zone-c (limit 3)',
  'zone-c-04   Unhealthy   NetworkNotReady       -      30s    held: storm guard: 4 of 10 nodes unhealthy in topology.kubernetes.io/zone=zone-c (limit 3)',
  'zone-c-06   Unhealthy   NetworkNotReady       -      30s    held: storm guard: 13 of 30 nodes unhealthy (limit 12)',
  'zone-c-08   Suspect     NetworkNotReady       -      2s     Ready=False for 6s',
];

describe("reading `noderepair status`'s table", () => {
  it('finds the storm holds with their counts and domain', () => {
    const holds = stormHolds(table, ['zone-c-02', 'zone-c-06', 'zone-c-08', 'zone-a-01']);
    expect([...holds.keys()]).toEqual(['zone-c-02', 'zone-c-06']);
    expect(holds.get('zone-c-02')).toEqual({
      node: 'zone-c-02',
      unhealthy: 4,
      total: 10,
      limit: 3,
      domain: 'topology.kubernetes.io/zone=zone-c',
    });
    expect(holds.get('zone-c-06')?.domain).toBe('');
  });

  it("says whether every node is held by its zone's storm", () => {
    expect(allHeldByZoneStorm(table, ['zone-c-02', 'zone-c-04'], 'zone-c', 10)).toBe(true);
    // held by the fleet's storm, not the zone's; not held at all; another zone's size
    expect(allHeldByZoneStorm(table, ['zone-c-02', 'zone-c-06'], 'zone-c', 10)).toBe(false);
    expect(allHeldByZoneStorm(table, ['zone-c-02', 'zone-c-08'], 'zone-c', 10)).toBe(false);
    expect(allHeldByZoneStorm(table, ['zone-c-02'], 'zone-b', 10)).toBe(false);
    expect(allHeldByZoneStorm(table, ['zone-c-02'], 'zone-c', 9)).toBe(false);
  });
});
