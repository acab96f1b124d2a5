// Every input of the noderepair command line is strict: flags, the policy file and the trace.
// A misspelt flag or field exits with a message naming it (and what was probably meant).
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { runCli } from './noderepair.js';
import { parseRunArgs, runCommand } from './run.js';

async function cli(args: string[], files: Record<string, string> = {}) {
  const err: string[] = [];
  const code = await runCli(args, {
    stdout: () => {},
    stderr: (l) => err.push(l),
    readFile: async (p) => {
      const f = files[p];
      if (f === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return f;
    },
  });
  return { code, err: err.join('\n') };
}

const trace =
  '{"time":"2026-01-01T00:00:00Z","node":"w1","conditions":[{"type":"Ready","status":"True"}]}';

describe('noderepair: strict inputs', () => {
  it('simulate: a misspelt flag names the flag meant (exit 2)', async () => {
    const r = await cli(['simulate', '--polcy', 'p', '--trace', 't']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^noderepair simulate: unknown flag --polcy \(did you mean --policy\?\); known flags: --policy, --trace, --json, --horizon, --help\n/,
    );
    expect((await cli(['simulate', '--policy'])).err).toMatch(
      /^noderepair simulate: --policy needs a value/,
    );
  });

  it('simulate: a misspelt policy field is refused (exit 1), naming file, field and spelling', async () => {
    const r = await cli(['simulate', '--policy', 'p.yaml', '--trace', 't'], {
      'p.yaml': 'stormGuard:\n  maxUnhealty: 10%\n',
      t: trace,
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^noderepair simulate: p\.yaml: invalid repair policy: stormGuard\.maxUnhealty: unknown field "maxUnhealty" \(did you mean "maxUnhealthy"\?\); known fields: maxUnhealthy, maxInFlight, /,
    );
  });

  it('simulate: a misspelt trace field is refused (exit 1) with its line', async () => {
    const r = await cli(['simulate', '--policy', 'p', '--trace', 't.jsonl'], {
      p: '{}',
      't.jsonl': trace.replace('"conditions"', '"conditons"'),
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^noderepair simulate: t\.jsonl: invalid trace: line 1: conditons: unknown field "conditons" \(did you mean "conditions"\?\)/,
    );
  });

  it('run: a misspelt flag names the flag meant; a misspelt policy field stops it before any cluster', async () => {
    expect(parseRunArgs(['--policy', 'p', '--dryrun'])).toEqual(
      either.left(
        'unknown flag --dryrun (did you mean --dry-run?); known flags: --policy, --kubeconfig, --dry-run, --leader-elect, --leader-election-namespace, --leader-election-id, --disruption-lease-holder, --metrics-bind-address, --health-probe-bind-address, --label-selector, --provider, --provider-module, --cloud, --provider-opt, --log-level',
      ),
    );
    const err: string[] = [];
    const code = await runCommand(['--policy', 'p.yaml'], {
      stdout: () => {},
      stderr: (l) => err.push(l),
      readFile: async () => 'drain:\n  enable: false\n',
    });
    expect(code).toBe(1);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(
      /^noderepair run: p\.yaml: invalid repair policy: drain\.enable: unknown field "enable" \(did you mean "enabled"\?\); known fields: enabled, timeout/,
    );
  });
});
