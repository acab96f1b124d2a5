// The README's generated reference tables must match the code, and every metric the code
// registers must be documented. Fix a failure with `pnpm docs:reference`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyFieldMeanings } from './policy-fields.js';
import { metricRegistrationsInSource } from './metric-names.js';
import {
  capoCounterLabels,
  crdFields,
  defaultMetricNames,
  policyFields,
  readSection,
  registeredMetrics,
  renderSection,
  repoRoot,
  sections,
  type SectionName,
} from './reference.js';
import {
  openStackRemediationCRD,
  openStackRemediationTemplateCRD,
} from '../../packages/capo-remediation/src/api/index.js';

const readme = () => readFileSync(join(repoRoot, 'README.md'), 'utf8');

describe('README generated sections', () => {
  for (const name of Object.keys(sections) as SectionName[]) {
    it(`${name} is up to date (run \`pnpm docs:reference\` after changing the code)`, async () => {
      const current = readSection(readme(), name);
      expect(current, `README.md has no markers for ${name}`).toBeDefined();
      expect(current).toBe(await renderSection(name));
    });
  }
});

describe('policy reference', () => {
  it('describes every field of the policy codec, and no field the codec does not have', () => {
    const paths = policyFields().map((f) => f.path);
    expect(paths.length).toBeGreaterThan(20);
    expect(Object.keys(policyFieldMeanings).sort()).toEqual([...paths].sort());
  });

  it('shows the resolved defaults of resolveRepairPolicy, not hand-written ones', async () => {
    const table = await renderSection('policy-reference');
    expect(table).toMatch(/`nodeStartupTimeout`\s*\|\s*duration\s*\|\s*`10m`/);
    expect(table).toMatch(/`stormGuard.maxUnhealthy`\s*\|[^|]*\|\s*`40%`/);
    expect(table).toMatch(/`annotations.state`\s*\|\s*string\s*\|\s*`noderepair.io\/repair-state`/);
  });
});

describe('CRD reference', () => {
  const schema = (crd: ReturnType<typeof openStackRemediationCRD>) =>
    crd.spec.versions[0]!.schema.openAPIV3Schema as Parameters<typeof crdFields>[0];

  it('lists every spec and status field of OpenStackRemediation', async () => {
    const table = await renderSection('crd-reference');
    const fields = crdFields(schema(openStackRemediationCRD())).map((f) => f.path);
    for (const p of [
      'spec.steps[].imageRef',
      'spec.drain.outOfServiceTaint',
      'status.history[].result',
    ])
      expect(fields).toContain(p);
    for (const p of fields) expect(table).toContain(`\`${p}\``);
  });

  it('lists the template fields, with its spec.template.spec pointing at the remediation spec', async () => {
    const table = await renderSection('crd-reference');
    const fields = crdFields(schema(openStackRemediationTemplateCRD())).map((f) => f.path);
    for (const p of fields.filter((f) => !f.startsWith('spec.template.spec.')))
      expect(table).toContain(`\`${p}\``);
    expect(table).toContain('`spec.template.spec`');
  });
});

describe('metrics reference', () => {
  it('documents exactly the metrics registered in the source (no registry left out)', async () => {
    const fromRegistries = (await registeredMetrics()).map((m) => m.name).sort();
    const fromSource = [...metricRegistrationsInSource(repoRoot).keys()].sort();
    expect(fromRegistries).toEqual(fromSource);
    const table = await renderSection('metrics-reference');
    for (const name of fromRegistries) expect(table).toContain(`\`${name}\``);
  });

  it('knows the labels capo-remediation increments its counters with', () => {
    // Every non-test file of the controller (each reconcile step has its own).
    const dir = join(repoRoot, 'packages/capo-remediation/src/controller');
    const src = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    const used = new Map<string, Set<string>>();
    const prop = {
      actions: 'noderepair_openstack_remediation_actions_total',
      outcomes: 'noderepair_openstack_remediation_outcomes_total',
      cloudUnavailable: 'noderepair_capo_cloud_unreachable_total',
    } as const;
    for (const m of src.matchAll(
      /metrics\.(actions|outcomes|cloudUnavailable)\.inc\(\{([^}]*)\}\)/g,
    )) {
      const name = prop[m[1] as keyof typeof prop];
      const keys = [...m[2]!.matchAll(/(\w+)\s*:/g)].map((k) => k[1]!);
      used.set(name, new Set([...(used.get(name) ?? []), ...keys]));
    }
    expect(used.size).toBe(3);
    for (const [name, keys] of used)
      expect([...keys].sort()).toEqual([...capoCounterLabels[name]!].sort());
  });

  it('the manager registry carries prom-client default metrics', () => {
    const names = defaultMetricNames();
    expect(names).toContain('process_resident_memory_bytes');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
  });
});
