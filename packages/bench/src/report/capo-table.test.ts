import { describe, expect, it } from 'vitest';
import { point } from './capo-point.test-support.js';
import { capoSection } from './capo-table.js';

describe('capoSection', () => {
  it('says when nothing ran', () => {
    expect(capoSection([])).toBe('_not run_');
  });

  it('shows each point beside Cluster API with the ratio, and the per-cluster memory slope', () => {
    const text = capoSection([point(50, 1, 80), point(50, 3, 86)]);
    expect(text).toContain(
      '| 50 × 1 | remediation seen → Nova accepted the HARD reboot, p50 / p99 / max | 1,200 ms / 4,000 ms / 4,100 ms |',
    );
    expect(text).toContain(
      '| 50 × 3 | management kube-apiserver requests per remediation | 10.0 | 30.0 | 3.0× |',
    );
    expect(text).toContain(
      "| 50 × 1 | Nova's os-instance-actions | 50/50 servers rebooted, 0 twice |",
    );
    // (86 - 80) MiB over 2 more clusters; Cluster API 8 MiB each.
    expect(text).toContain('| 50 | 3.0 MiB | 8.0 MiB |');
    expect(text).toContain('50 × 3: 30.5 s');
  });

  it('names the remediations Nova never accepted, and needs two cluster counts for a slope', () => {
    const text = capoSection([point(10, 1, 70, 7)]);
    expect(text).toContain('(3 of 10 not accepted)');
    expect(text).toContain('needs two cluster counts at one size');
  });
});
