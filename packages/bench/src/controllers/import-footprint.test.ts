// The packages a shipped controller's process loads at start, as Node resolves them: a guard
// for the resident-memory figures, not a figure. Two dependencies are kept out on purpose:
// rxjs (only `noderepair simulate` runs the rxjs loop; ~5.5 MiB of RSS in every process that
// loads it) and the undici package (the OpenStack transport is node:https; ~7 MiB). A resolve
// hook in a child process records every module Node resolves while the entry is imported.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

// Runs in Node's loader thread; reports over the port register() hands it.
const HOOK = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}`;

const SCRIPT = (entry: string) => `
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const seen = new Set();
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => seen.add(url));
port1.unref();
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}), {
  data: { port: port2 },
  transferList: [port2],
});
await import(${JSON.stringify(entry)});
await new Promise((r) => setTimeout(r, 100)); // the last messages from the loader thread
process.stdout.write(JSON.stringify([...seen]));
`;

/** The npm packages (by name) among the modules Node resolved while importing `entry`. */
function packagesLoadedBy(entry: string): string[] {
  const out = execFileSync(
    process.execPath,
    // `source`: the workspace packages' own sources (their exports' condition), not a build.
    [
      '--conditions=source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      SCRIPT(fileURLToPath(new URL(entry, `file://${repoRoot}/`))),
    ],
    { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 },
  );
  const names = new Set<string>();
  for (const url of JSON.parse(out) as string[]) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(
      url.replace(/^.*\/node_modules\/\.pnpm\/[^/]+/, ''),
    );
    if (m) names.add(m[1]!);
  }
  return [...names].sort();
}

describe("what the shipped controllers' processes load", () => {
  it.each([
    ['capo-remediation-controller', 'packages/capo-remediation/src/controller/main.ts'],
    ['noderepair (run)', 'packages/core/src/cli/noderepair.ts'],
  ])('%s loads neither rxjs nor undici', (_name, entry) => {
    const loaded = packagesLoadedBy(entry);
    // Not vacuous: the hook saw the packages the controller does use.
    expect(loaded).toEqual(expect.arrayContaining(['fp-ts', 'prom-client', 'yaml']));
    expect(loaded).not.toContain('rxjs');
    expect(loaded).not.toContain('undici');
  });
});
