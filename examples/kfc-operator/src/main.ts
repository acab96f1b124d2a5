// Entry point: `pnpm start` (or `node --import tsx src/main.ts`) with NAMESPACE set and a
// kubeconfig that KFC can find. Stops cleanly on SIGTERM / SIGINT.
import { readConfig } from './config.js';
import { runOperator } from './operator.js';

const stop = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => stop.abort());

try {
  await runOperator(readConfig(process.env), stop.signal);
} catch (err) {
  process.stderr.write(`kfc-operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
