// `SEED=123 pnpm --filter @noderepair/sim run sim`: runs one seed and prints its history and
// the verdict; exits 1 when an invariant is violated. NODES and MINUTES change the shape,
// QUIET the fault-free tail after MINUTES (liveness is judged in it);
// POLICY=hard-first runs a HardReboot-first ladder (policy.ts); POLICY=npd per-condition
// rules with node-problem-detector's KernelDeadlock on some hung nodes (policy.ts, World.npd);
// POLICY=replace ladders that end in Replace (and a KernelDeadlock rule of Replace alone);
// SEEDS=1-50 runs a range and prints one summary line per seed (the developers' longer mode).
// MUTANT=<name> runs a deliberately broken variant (mutant-registry.ts). SHRINK=1 (one seed
// that fails) shrinks its fault schedule and writes it to shrunk-<seed>.json (or SHRINK=<file>);
// SCHEDULE=<file> replays such a file (its seed, shape and faults) instead of the seed's draw.
import { readFileSync, writeFileSync } from 'node:fs';
import { formatEntry } from './history.js';
import { checkAll } from './invariants.js';
import { mutants } from './mutant-registry.js';
import { shrink, type ScheduleFile } from './shrink.js';
import { namedPolicyDocs, npdPolicies } from './policy.js';
import { report } from './report.js';
import { runSim } from './run.js';

const env = process.env;
const replay =
  env['SCHEDULE'] !== undefined
    ? (JSON.parse(readFileSync(env['SCHEDULE'], 'utf8')) as ScheduleFile)
    : undefined;
const nodes = replay?.nodes ?? Number(env['NODES'] ?? 30);
const minutes = replay?.minutes ?? Number(env['MINUTES'] ?? 120);
const mutantName = env['MUTANT'];
const mutant = mutantName !== undefined ? mutants[mutantName] : undefined;
if (mutantName !== undefined && mutant === undefined)
  throw new Error(`MUTANT=${mutantName}: expected one of ${Object.keys(mutants).join(', ')}`);
const quietMinutes = env['QUIET'] !== undefined ? Number(env['QUIET']) : undefined;
const policyName = env['POLICY'] ?? 'default';
const policyDoc = namedPolicyDocs[policyName];
if (policyDoc === undefined)
  throw new Error(
    `POLICY=${policyName}: expected one of ${Object.keys(namedPolicyDocs).join(', ')}`,
  );
let failed = 0;
const range = /^(\d+)-(\d+)$/.exec(env['SEEDS'] ?? '');
const seeds =
  range !== null
    ? Array.from(
        { length: Number(range[2]) - Number(range[1]) + 1 },
        (_, i) => Number(range[1]) + i,
      )
    : [replay?.seed ?? Number(env['SEED'] ?? 1)];
for (const seed of seeds) {
  const r = await runSim({
    seed,
    nodes,
    minutes,
    policyDoc,
    ...(quietMinutes !== undefined ? { quietMinutes } : {}),
    ...(npdPolicies.has(policyName) ? { npd: true } : {}),
    ...(replay !== undefined ? { faults: replay.faults } : {}),
    ...mutant?.options,
  });
  const v = checkAll(r.history.entries, r.policy);
  if (v.length > 0) failed++;
  const text = report(r, v, seeds.length === 1);
  console.log(
    seeds.length === 1
      ? text
      : text
          .split('\n')
          .filter((l) => !l.startsWith('provider'))
          .join(' | '),
  );
}
if (env['SHRINK'] !== undefined && seeds.length === 1 && failed > 0) {
  const s = await shrink({
    seed: seeds[0]!,
    nodes,
    minutes,
    policyDoc,
    ...(npdPolicies.has(policyName) ? { npd: true } : {}),
    ...(quietMinutes !== undefined ? { quietMinutes } : {}),
    ...(replay !== undefined ? { faults: replay.faults } : {}),
    ...mutant?.options,
  });
  if (s !== undefined) {
    const file = env['SHRINK'] !== '1' ? env['SHRINK']! : `shrunk-${s.seed}.json`;
    const out: ScheduleFile = {
      seed: s.seed,
      nodes,
      minutes,
      invariant: s.invariant,
      faults: s.faults,
    };
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    console.log(
      `\nshrunk: ${s.invariant} still fails with ${s.faults.length} of ${s.from} faults (${s.runs} runs); replay: SCHEDULE=${file}${mutantName !== undefined ? ` MUTANT=${mutantName}` : ''}`,
    );
    for (const f of s.faults) console.log(`  ${JSON.stringify(f)}`);
    for (const v of s.violations)
      console.log(
        `  ${formatEntry({ t: v.t, kind: 'fault', fault: v.invariant, detail: v.message })}`,
      );
  }
}
if (seeds.length > 1) console.log(`${seeds.length - failed} of ${seeds.length} seeds passed`);
process.exitCode = failed > 0 ? 1 : 0;
