// `SEED=123 pnpm --filter @noderepair/sim run sim`: runs one seed and prints its history and
// the verdict; exits 1 when an invariant is violated. NODES and MINUTES change the shape,
// QUIET the fault-free tail after MINUTES (liveness is judged in it);
// POLICY=hard-first runs a HardReboot-first ladder (policy.ts); POLICY=npd per-condition
// rules with node-problem-detector's KernelDeadlock on some hung nodes (policy.ts, World.npd);
// SEEDS=1-50 runs a range and prints one summary line per seed (the developers' longer mode).
import { checkAll } from './invariants.js';
import { namedPolicyDocs } from './policy.js';
import { report } from './report.js';
import { runSim } from './run.js';

const env = process.env;
const nodes = Number(env['NODES'] ?? 30);
const minutes = Number(env['MINUTES'] ?? 120);
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
    : [Number(env['SEED'] ?? 1)];
for (const seed of seeds) {
  const r = await runSim({
    seed,
    nodes,
    minutes,
    policyDoc,
    ...(quietMinutes !== undefined ? { quietMinutes } : {}),
    ...(policyName === 'npd' ? { npd: true } : {}),
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
if (seeds.length > 1) console.log(`${seeds.length - failed} of ${seeds.length} seeds passed`);
process.exitCode = failed > 0 ? 1 : 0;
