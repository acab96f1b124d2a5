// Every example policy in examples/policies decodes with the strict decoder (an unknown or
// misspelt field is an error), and every trace there replays through `noderepair simulate`
// with the policy it names, with the decisions its comments promise.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../packages/core/src/cli/index.js';
import { resolveRepairPolicy } from '../../packages/core/src/health/policy.js';

const dir = fileURLToPath(new URL('../policies/', import.meta.url));
const policies = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

async function simulate(policy: string, trace: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    ['simulate', '--json', '--policy', join(dir, policy), '--trace', join(dir, trace)],
    {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      readFile: async (p) => readFileSync(p, 'utf8'),
    },
  );
  return { code, err, decisions: out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('examples/policies', () => {
  it('has policies', () => expect(policies.length).toBeGreaterThan(0));

  it.each(policies)('%s decodes with the strict decoder', (file) => {
    const r = resolveRepairPolicy(YAML.parse(readFileSync(join(dir, file), 'utf8')));
    expect(r._tag === 'Left' ? r.left : 'ok').toBe('ok');
  });

  it('node-problem-detector.yaml: KernelDeadlock gets its own HardReboot, containerd restarts are reported only', async () => {
    const { code, err, decisions } = await simulate(
      'node-problem-detector.yaml',
      'kernel-deadlock.jsonl',
    );
    expect({ code, err }).toEqual({ code: 0, err: [] });
    // One line per action ("HardReboot (dry-run)": the policy starts in dry-run), "-" for none.
    const actions = (node: string) =>
      decisions
        .filter((d) => d['node'] === node && d['action'] !== '-')
        .map((d) => String(d['action']).replace(/ \(dry-run\)$/, ''));
    expect(actions('w1')).toEqual(['Cordon', 'Drain', 'HardReboot', 'Fence', 'Uncordon']);
    expect(actions('w2')).toEqual([]);
    expect(decisions.some((d) => d['node'] === 'w2' && d['phase'] === 'Unhealthy')).toBe(true);
  });
});
