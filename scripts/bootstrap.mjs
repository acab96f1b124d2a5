#!/usr/bin/env node
// The README's two commands (`npm run demo`, `npm test`) land here. On a fresh machine this
// installs everything the project needs — pnpm, Debian packages the tests use, the npm
// dependencies, the Kubernetes test binaries (built once from Go modules, cached outside the
// repo) — then runs the demo or every test suite. Each step is skipped when already done.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
const what = process.argv[2];
const rest = process.argv.slice(3);

const step = (msg) => console.log(`\n==> ${msg}`);
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) {
    console.error(`bootstrap: '${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}
function output(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function ensurePnpm() {
  if (output('pnpm', ['--version']) === pnpmVersion) return;
  step(`installing pnpm ${pnpmVersion} with npm`);
  sh('npm', ['install', '--global', `pnpm@${pnpmVersion}`]);
}

/** Debian packages listed in packages/*\/apt-packages.txt (tools tests run for real). */
function ensureDebianPackages() {
  const wanted = new Set();
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const f = join(root, 'packages', pkg, 'apt-packages.txt');
    if (!existsSync(f)) continue;
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      const name = line.replace(/#.*/, '').trim();
      if (name) wanted.add(name);
    }
  }
  const missing = [...wanted].filter((p) => !output('dpkg-query', ['-W', '-f=${Status}', p]).includes('install ok installed'));
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(`bootstrap: these Debian packages are needed: ${missing.join(' ')}\n  run: sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(1);
  }
  step(`installing Debian packages: ${missing.join(' ')}`);
  sh('apt-get', ['update', '-qq']);
  sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

ensurePnpm();
if (what === 'test') ensureDebianPackages();
step('installing npm dependencies');
sh('pnpm', ['install', '--frozen-lockfile']);
step('building the packages');
sh('pnpm', ['run', 'build']);
step('envtest binaries (etcd, kube-apiserver, kube-controller-manager)');
sh('pnpm', ['run', 'envtest:assets']);

if (what === 'demo') {
  step('demo');
  sh('pnpm', ['run', 'demo:run', ...rest]);
} else if (what === 'test') {
  step('every test suite');
  sh('pnpm', ['run', 'test:all', ...rest]);
} else {
  console.error('usage: node scripts/bootstrap.mjs demo|test');
  process.exit(2);
}
