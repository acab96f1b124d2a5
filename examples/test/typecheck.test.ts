// Every TypeScript example type-checks as written (strict, NodeNext; see ../tsconfig.json),
// and none is left out of the check: the examples/ folders and packages/*/examples.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !f.includes('/node_modules/'));
}

it(
  'every TypeScript example type-checks (tsc -p examples/tsconfig.json)',
  { timeout: 300_000 },
  async () => {
    const { stdout, code } = await promisify(execFile)(
      process.execPath,
      [tsc, '-p', join(repo, 'examples', 'tsconfig.json'), '--listFiles', '--pretty', 'false'],
      { cwd: repo, maxBuffer: 64 * 1024 * 1024 },
    ).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout?: string; code?: number }) => ({ stdout: e.stdout ?? '', code: e.code ?? -1 }),
    );
    const lines = stdout.split('\n');
    expect(lines.filter((l) => /error TS\d+/.test(l))).toEqual([]);
    expect(code).toBe(0);

    const checked = new Set(lines.filter((l) => l.startsWith('/')));
    const examples = [
      ...tsFiles(join(repo, 'examples')),
      ...readdirSync(join(repo, 'packages')).flatMap((p) => {
        try {
          return tsFiles(join(repo, 'packages', p, 'examples'));
        } catch {
          return []; // this package has no examples/
        }
      }),
    ];
    expect(examples.length).toBeGreaterThan(5);
    expect(examples.filter((f) => !checked.has(f)).map((f) => relative(repo, f))).toEqual([]);
  },
);
