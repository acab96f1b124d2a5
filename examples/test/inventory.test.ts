// Every example is exercised by some test, so a new one cannot slip in unchecked:
// each folder of examples/ has a README and the tests listed here, which name it;
// every simulator trace in examples/traces replays cleanly through `noderepair simulate`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../packages/core/src/cli/index.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(repo, 'examples');

/** Example folder -> the tests (repo paths) that validate or run it. */
const coveredBy: Record<string, string[]> = {
  'capi-openstack': [
    'packages/capo-remediation/src/api/examples-dir.test.ts', // decodes, references
    'packages/capo-remediation/src/api/crd.int.test.ts', // template against our CRD
    'packages/capo-remediation/test/mhc-contract.int.test.ts', // MHCs against Cluster API's CRDs
  ],
  'kfc-operator': [
    'examples/kfc-operator/test/operator.test.ts',
    'examples/kfc-operator/test/operator.int.test.ts',
  ],
  overlay: [
    'packages/overlayfs-gen/src/examples.test.ts', // validator + both snippet formats
    'examples/test/manifests.int.test.ts', // the KubeadmConfigTemplate against Cluster API's CRD
  ],
  standalone: [
    'packages/core/src/cli/run.test.ts', // policy, Deployment args, RBAC rules
    'examples/test/manifests.int.test.ts', // every manifest: server-side dry run, strict fields
  ],
  policies: ['examples/test/policies.test.ts'], // strict decode, the traces replayed
  traces: ['packages/core/src/cli/noderepair.test.ts', 'examples/test/inventory.test.ts'],
};

describe('examples/', () => {
  const dirs = readdirSync(examples, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'test' && e.name !== 'node_modules')
    .map((e) => e.name)
    .sort();

  it('every example folder has a README and tests that name it', () => {
    expect(dirs).toEqual(Object.keys(coveredBy).sort());
    for (const dir of dirs) {
      expect(existsSync(join(examples, dir, 'README.md')), `examples/${dir}/README.md`).toBe(true);
      for (const test of coveredBy[dir] ?? []) {
        const text = readFileSync(join(repo, test), 'utf8');
        const own = test.startsWith(`examples/${dir}/`);
        expect(
          own || text.includes(`examples/${dir}`) || text.includes(`'examples', '${dir}'`),
          `${test} names examples/${dir}`,
        ).toBe(true);
      }
    }
  });

  const traces = readdirSync(join(examples, 'traces')).filter((f) => f.endsWith('.jsonl'));
  it('every trace is checked by name in the simulator tests', () => {
    const simTest = readFileSync(join(repo, 'packages/core/src/cli/noderepair.test.ts'), 'utf8');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.filter((t) => !simTest.includes(t))).toEqual([]);
  });

  it.each(traces)('traces/%s replays through noderepair simulate', async (trace) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      [
        'simulate',
        '--json',
        '--policy',
        join(examples, 'traces', 'policy.yaml'),
        '--trace',
        join(examples, 'traces', trace),
      ],
      {
        stdout: (l) => out.push(l),
        stderr: (l) => err.push(l),
        readFile: async (p) => readFileSync(p, 'utf8'),
      },
    );
    expect({ code, err }).toEqual({ code: 0, err: [] });
    // One decision per line, each about a node (the shutdown trace decides never to act).
    const decisions = out.map((l) => JSON.parse(l) as { node: string; phase: string });
    expect(decisions.length).toBeGreaterThan(0);
    expect(decisions.every((d) => d.node !== '' && d.phase !== '')).toBe(true);
  });
});
