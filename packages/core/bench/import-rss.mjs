// RSS after importing one module, each in a fresh process (node --expose-gc), so the figures
// are the floor each entry point adds to a controller. Run after `pnpm run build`:
//   node --expose-gc bench/import-rss.mjs [specifier ...]
// Prints one JSON line per specifier: RSS and heap (MiB) before and after, two full GCs each.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const defaults = [
  'node:fs', // baseline: an empty process
  '@kubernetes/client-node',
  '../dist/index.js',
  '../dist/kube/index.js',
  '../dist/runtime/index.js',
  '../dist/health/index.js',
  '../dist/autorepair/index.js',
  '../dist/codec/index.js',
  '../dist/cli/run.js',
  '../dist/kube/kfc/index.js',
  '../../capo-remediation/dist/controller/main.js',
  'pino',
  'prom-client',
  'yaml',
  'io-ts',
  'rxjs',
];

const probe = `
const mib = (n) => +(n / 1048576).toFixed(1);
const m = () => { gc(); gc(); const u = process.memoryUsage(); return { rss: mib(u.rss), heap: mib(u.heapUsed) }; };
const before = m();
await import(process.env.IMPORT_RSS_MODULE);
const after = m();
process.stdout.write(JSON.stringify({ before, after }));
`;

const specs = process.argv.slice(2).length ? process.argv.slice(2) : defaults;
for (const spec of specs) {
  const resolved = spec.startsWith('.') ? new URL(spec, import.meta.url).href : spec;
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', probe],
    // The module comes by env: a controller's main module compares process.argv[1] with itself.
    { cwd: here, encoding: 'utf8', env: { ...process.env, IMPORT_RSS_MODULE: resolved } },
  );
  const r = JSON.parse(out);
  process.stdout.write(
    `${JSON.stringify({ bench: 'import-rss', module: spec, rssMiB: r.after.rss, addedRssMiB: +(r.after.rss - r.before.rss).toFixed(1), heapMiB: r.after.heap })}\n`,
  );
}
