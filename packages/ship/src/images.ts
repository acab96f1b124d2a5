// The controllers' images: what each installs, how its build context is made (the packed npm
// packages and a lock file, never the workspace), and the podman build on a base.
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { exec, repoRoot, stderrProgress, type Progress } from './exec.js';
import { imageSize, podman } from './podman.js';
import type { BaseImages } from './base-image.js';

export type ControllerName = 'capo-remediation' | 'noderepair';

export interface ImageSpec {
  name: ControllerName;
  /** Repository-relative Containerfile. */
  containerfile: string;
  /** The workspace packages the image installs (their dependencies come from npm). */
  packages: readonly string[];
  /** The public image name the bundles reference. */
  repository: string;
  /** The package whose program the image runs: its version tags the image. */
  program: string;
}

export const IMAGES: Record<ControllerName, ImageSpec> = {
  'capo-remediation': {
    name: 'capo-remediation',
    containerfile: 'packages/capo-remediation/Containerfile',
    packages: ['@noderepair/core', '@noderepair/openstack', '@noderepair/capo-remediation'],
    repository: 'ghcr.io/noderepair/capo-remediation',
    program: '@noderepair/capo-remediation',
  },
  noderepair: {
    name: 'noderepair',
    containerfile: 'examples/standalone/Containerfile',
    // @noderepair/openstack: the OpenStack (Nova) provider for `noderepair run`.
    packages: ['@noderepair/core', '@noderepair/openstack'],
    repository: 'ghcr.io/noderepair/noderepair',
    program: '@noderepair/core',
  },
};

interface WorkspacePackage {
  dir: string;
  name: string;
  version: string;
}

export function workspacePackages(): WorkspacePackage[] {
  return readdirSync(join(repoRoot, 'packages'))
    .sort()
    .flatMap((d) => {
      try {
        const m = JSON.parse(
          readFileSync(join(repoRoot, 'packages', d, 'package.json'), 'utf8'),
        ) as {
          name: string;
          version: string;
          private?: boolean;
        };
        return m.private
          ? []
          : [{ dir: join(repoRoot, 'packages', d), name: m.name, version: m.version }];
      } catch {
        return [];
      }
    });
}

/** `pnpm pack` (of the built dist/) every package named, into `dest`; returns name -> file. */
export async function packPackages(
  names: readonly string[],
  dest: string,
): Promise<Map<string, string>> {
  mkdirSync(dest, { recursive: true });
  const out = new Map<string, string>();
  for (const name of names) {
    const p = workspacePackages().find((w) => w.name === name);
    if (!p) throw new Error(`no publishable workspace package named ${name}`);
    const before = new Set(readdirSync(dest));
    await exec('pnpm', ['pack', '--pack-destination', dest], { cwd: p.dir });
    const made = readdirSync(dest).filter((f) => !before.has(f));
    if (made.length !== 1)
      throw new Error(`pnpm pack in ${p.dir} made ${made.join(', ') || 'nothing'}`);
    out.set(name, join(dest, made[0] as string));
  }
  return out;
}

/**
 * The image's build context: packages/*.tgz, a package.json that depends on them, the
 * package-lock.json npm resolves for it (so `npm ci` in the image installs exactly that), and
 * npm-cache/ with every package of the lock, so the image's `npm ci --offline` needs no
 * network (and no registry credentials or proxy certificates inside the build), and the
 * script that prunes node_modules (image/prune-node-modules.mjs).
 * Tarballs can come packed already (the release packs once for npm and the images).
 */
export async function makeContext(
  spec: ImageSpec,
  o: { dir?: string; tarballs?: Map<string, string> } = {},
): Promise<string> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), `noderepair-image-${spec.name}-`));
  const pkgs = join(dir, 'packages');
  mkdirSync(pkgs, { recursive: true });
  let tarballs: Map<string, string>;
  if (o.tarballs) {
    tarballs = new Map();
    for (const n of spec.packages) {
      const src = o.tarballs.get(n);
      if (!src) throw new Error(`no tarball for ${n}`);
      const to = join(pkgs, src.split('/').pop() as string);
      cpSync(src, to);
      tarballs.set(n, to);
    }
  } else tarballs = await packPackages(spec.packages, pkgs);
  const dependencies: Record<string, string> = {
    ...Object.fromEntries([...tarballs].map(([n, f]) => [n, `file:${relative(dir, f)}`])),
    // core's peer admits client-node 1.4 (Node 20) and 2.x (Node 22); npm would pick the newest,
    // which crashes on the images' Node 20 once loaded (an exec credential plugin loads it).
    '@kubernetes/client-node': clientNodeForNode20(),
  };
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `noderepair-${spec.name}-image`, private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  await exec(
    'npm',
    [
      'install',
      '--package-lock-only',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--omit=dev',
    ],
    { cwd: dir },
  );
  // Fill npm-cache/ the way the image will read it: a production `npm ci` here, then drop
  // what it installed (the cache keeps the tarballs it fetched).
  await exec(
    'npm',
    [
      'ci',
      '--omit=dev',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `--cache=${join(dir, 'npm-cache')}`,
    ],
    { cwd: dir },
  );
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  rmSync(join(dir, 'npm-cache', '_logs'), { recursive: true, force: true });
  cpSync(
    join(repoRoot, 'packages', 'ship', 'image', 'prune-node-modules.mjs'),
    join(dir, 'prune-node-modules.mjs'),
  );
  return dir;
}

export interface BuiltImage {
  ref: string;
  size: number;
  seconds: number;
}

/** Builds the image from the Containerfile on the given bases (the CI ones, or the public defaults). */
export async function buildImage(
  spec: ImageSpec,
  context: string,
  tag: string,
  o: { bases?: BaseImages; progress?: Progress } = {},
): Promise<BuiltImage> {
  const ref = `${spec.repository}:${tag}`;
  const started = Date.now();
  // --layers=false: one commit per stage; on vfs every layer is a full copy of the root fs.
  // --network none: the build is offline by construction (see makeContext).
  const args = [
    'build',
    '--network',
    'none',
    '--layers=false',
    '-f',
    join(repoRoot, spec.containerfile),
    '-t',
    ref,
  ];
  if (o.bases)
    args.push(
      '--build-arg',
      `NODE_BUILD_IMAGE=${o.bases.build}`,
      '--build-arg',
      `NODE_RUNTIME_IMAGE=${o.bases.runtime}`,
    );
  await podman([...args, context], { progress: o.progress ?? stderrProgress, stream: true });
  return { ref, size: await imageSize(ref), seconds: (Date.now() - started) / 1000 };
}

export function removeContext(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The client-node version core is built and tested with on Node 20 (its devDependency). */
function clientNodeForNode20(): string {
  const core = JSON.parse(
    readFileSync(join(repoRoot, 'packages', 'core', 'package.json'), 'utf8'),
  ) as { devDependencies?: Record<string, string> };
  const v = core.devDependencies?.['@kubernetes/client-node'];
  if (v === undefined)
    throw new Error('packages/core: no devDependency on @kubernetes/client-node');
  return v;
}
