// The memory floor: @kubernetes/client-node costs ~70-80 MiB resident on import, so core's
// entry point and the shipped controllers must not load it unless a kubeconfig plugin needs
// it. A fresh node process imports each module (from sources, as the tests do) under a
// resolve hook that prints every module URL it resolves.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));
const hooks = `
import { writeSync } from 'node:fs';
export async function resolve(s, c, next) {
  const r = await next(s, c);
  writeSync(2, 'RESOLVED ' + r.url + '\\n');
  return r;
}`;
const register = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
const hook = `data:text/javascript,${encodeURIComponent(register)}`;

/** Every module URL a fresh process resolves while importing `modules` (repo-relative). */
function resolvedBy(...modules: string[]): string[] {
  const script = modules.map((m) => `await import(${JSON.stringify(root + m)});`).join('\n');
  const r = spawnSync(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      '--import',
      hook,
      '--input-type=module',
      '-e',
      script,
    ],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`importing ${modules.join(', ')} failed:\n${r.stderr}`);
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('RESOLVED '))
    .map((l) => l.slice('RESOLVED '.length));
}

const clientNode = (urls: string[]) =>
  urls.filter(
    (u) => /[/+]@?kubernetes[/+]client-node[/@]/.test(u) || u.includes('kubernetes+client-node'),
  );

describe('importing core does not load @kubernetes/client-node', () => {
  it('detects client-node when it is imported (the check works)', () => {
    expect(clientNode(resolvedBy('packages/core/src/kube/kfc/index.ts'))).not.toEqual([]);
  });

  it.each([
    ['@noderepair/core', 'packages/core/src/index.ts'],
    ['noderepair run', 'packages/core/src/cli/run.ts'],
    ['the noderepair CLI', 'packages/core/src/cli/noderepair.ts'],
    ['capo-remediation controller', 'packages/capo-remediation/src/controller/main.ts'],
  ])('%s', (_name, module) => {
    const urls = resolvedBy(module);
    expect(urls.length).toBeGreaterThan(10);
    expect(clientNode(urls)).toEqual([]);
  });
});

// fp-ts' root index requires every one of its ~120 modules (~2-3 MiB resident); core needs
// only Either (io-ts loads it too), so sources import `fp-ts/lib/Either.js`.
const fpTsRoot = (urls: string[]) => urls.filter((u) => /[/+]fp-ts[@/].*\/lib\/index\.js$/.test(u));

describe('importing core does not load the root of fp-ts', () => {
  it('detects the root when it is imported (the check works)', () => {
    expect(fpTsRoot(resolvedBy('packages/overlayfs-gen/src/config/validate.ts'))).not.toEqual([]);
  });

  it.each([
    ['noderepair run', 'packages/core/src/cli/run.ts'],
    ['the noderepair CLI', 'packages/core/src/cli/noderepair.ts'],
    ['capo-remediation controller', 'packages/capo-remediation/src/controller/main.ts'],
  ])('%s', (_name, module) => {
    expect(fpTsRoot(resolvedBy(module))).toEqual([]);
  });
});
