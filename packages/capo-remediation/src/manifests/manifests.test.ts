// config/ is generated: this fails when the committed files differ from what the TypeScript
// definitions render (run `pnpm --filter @noderepair/capo-remediation generate`).
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { installObjects, managerRules, renderManifests } from './index.js';

const pkgRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else out.push(relative(pkgRoot, p));
  }
  return out;
}

describe('generated manifests', () => {
  it('config/ is up to date with the TypeScript definitions', async () => {
    const stale: string[] = [];
    for (const f of renderManifests()) {
      const onDisk = await readFile(join(pkgRoot, f.path), 'utf8').catch(() => undefined);
      if (onDisk !== f.content) stale.push(f.path);
    }
    expect(stale, 'stale: run `pnpm --filter @noderepair/capo-remediation generate`').toEqual([]);
  });

  it('config/ holds no file the generator does not write', async () => {
    const expected = new Set(renderManifests().map((f) => f.path));
    const extra = (await listFiles(join(pkgRoot, 'config'))).filter((p) => !expected.has(p));
    expect(extra).toEqual([]);
  });

  it('every generated YAML file parses', () => {
    for (const f of renderManifests()) {
      for (const doc of parseAllDocuments(f.content)) expect(doc.errors, f.path).toEqual([]);
    }
  });
});

describe('RBAC', () => {
  const rule = (group: string, resource: string) =>
    managerRules
      .filter((r) => r.apiGroups.includes(group) && r.resources.includes(resource))
      .flatMap((r) => r.verbs);

  it('grants no wildcards', () => {
    for (const r of managerRules) {
      expect(r.verbs).not.toContain('*');
      expect(r.resources).not.toContain('*');
      expect(r.apiGroups).not.toContain('*');
    }
  });

  it('reads single Secrets only, never lists or writes them', () => {
    expect(rule('', 'secrets')).toEqual(['get']);
  });

  it('writes Machine status but not Machines, and never deletes Machines', () => {
    expect(rule('cluster.x-k8s.io', 'machines')).toEqual(['get', 'list', 'watch']);
    expect(rule('cluster.x-k8s.io', 'machines/status')).toContain('patch');
    expect(rule('infrastructure.cluster.x-k8s.io', 'openstackmachines')).toEqual([
      'get',
      'list',
      'watch',
    ]);
  });

  it('can drain: cordon nodes, list and evict pods (never delete them), record events', () => {
    expect(rule('', 'nodes')).toContain('patch');
    expect(rule('', 'pods')).toEqual(['list']);
    expect(rule('', 'pods/eviction')).toEqual(['create']);
    expect(rule('', 'events')).toEqual(['create', 'patch']);
  });

  it('lets the Cluster API manager create and delete our kinds through an aggregated ClusterRole', () => {
    const agg = installObjects().find(
      (o) =>
        (o.metadata as { labels?: Record<string, string> }).labels?.[
          'cluster.x-k8s.io/aggregate-to-manager'
        ] === 'true',
    ) as { kind: string; rules: Array<{ resources: string[]; verbs: string[] }> } | undefined;
    expect(agg?.kind).toBe('ClusterRole');
    expect(agg?.rules[0]?.resources).toEqual([
      'openstackremediations',
      'openstackremediationtemplates',
    ]);
    expect(agg?.rules[0]?.verbs).toEqual(
      expect.arrayContaining(['get', 'list', 'watch', 'create', 'delete', 'patch']),
    );
  });
});

describe('Deployment', () => {
  const dep = installObjects().find((o) => o.kind === 'Deployment') as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('runs 2 replicas with leader election, non-root and a read-only root file system', () => {
    expect(dep.spec.replicas).toBe(2);
    const c = dep.spec.template.spec.containers[0];
    expect(c.args).toContain('--leader-elect');
    expect(dep.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(c.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.resources.requests).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
  });

  it('the metrics Service selects the Deployment pods', () => {
    const svc = installObjects().find((o) => o.kind === 'Service') as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const [k, v] of Object.entries(svc.spec.selector))
      expect(dep.spec.template.metadata.labels[k]).toBe(v);
  });
});
