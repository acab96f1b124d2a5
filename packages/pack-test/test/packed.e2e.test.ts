// The packages as npm users get them: `pnpm pack` every publishable package, check what each
// tarball holds, install the tarballs with npm into a fresh project outside the workspace,
// compile a small controller (consumer/) with tsc against their public exports only (strict,
// NodeNext, no "source" condition, no path aliases), and run it on a real control plane that
// the packed @noderepair/envtest starts. The installed bins run too. The consumer is installed,
// compiled and run twice, at both ends of the client peer ranges (test/consumer.ts): Node 20
// with the lowest clients, Node 22 with the newest.
//
// Needs: the packages built (`pnpm run build`; CI does it first), the npm registry (npm's
// cache makes later runs quick), the envtest binaries in ~/.cache/noderepair and the Node 22
// binary (scripts/node22.mjs, run by CI's setup step; the test fetches it when missing).
import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ends,
  envWithNode,
  installedCopies,
  installedVersion,
  newestMatching,
  sharedLibraries,
} from './consumer.js';
import {
  SNIPPET_OUT,
  section,
  shellCommands,
  extractSnippets,
  shippedMarkdown,
  shippedSnippets,
  snippetDiagnostics,
  writeSnippetProject,
} from './shipped-docs.js';
import {
  bareImports,
  entryPointTargets,
  tarballFiles,
  unreachableModules,
  withoutSourceCondition,
  type Manifest,
} from './tarball.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const consumerSrc = fileURLToPath(new URL('../consumer/', import.meta.url));
const ClientNode = '@kubernetes/client-node';
const Kfc = 'kubernetes-fluent-client';
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;

// The publishable packages: every workspace package not marked private.
const publishable = readdirSync(join(repo, 'packages'))
  .sort()
  .map((dir) => ({
    dir: join(repo, 'packages', dir),
    manifest: readJson<Manifest>(join(repo, 'packages', dir, 'package.json')),
  }))
  .filter((p) => p.manifest.private !== true);

// npm inside a pnpm script would inherit pnpm's npm_config_* settings; the consumer is a
// plain npm project, so it gets a plain environment.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(npm|pnpm)_/i.test(k)),
);

async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv = cleanEnv,
) {
  try {
    return await run(cmd, args, {
      cwd,
      env,
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    const tail = (s: string | undefined) => (s ?? '').split('\n').slice(-40).join('\n');
    throw new Error(
      `${cmd} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${tail(e.stdout)}\n${tail(e.stderr)}`,
    );
  }
}

describe('the packed packages, installed from tarballs into a fresh project', () => {
  const work = mkdtempSync(join(tmpdir(), 'noderepair-pack-test-'));
  const tarballs = join(work, 'tarballs');
  const packed = new Map<
    string,
    { tgz: string; unpacked: string; files: string[]; manifest: Manifest; source: Manifest }
  >();

  beforeAll(async () => {
    mkdirSync(tarballs);
    for (const { dir, manifest } of publishable) {
      // CI builds before it tests (scripts/bootstrap.mjs); this test packs what dist/ holds.
      if (!existsSync(join(dir, 'dist', 'index.js')))
        throw new Error(`${manifest.name}: no dist/index.js; run \`pnpm run build\` first`);
      const before = new Set(readdirSync(tarballs));
      await sh('pnpm', ['pack', '--pack-destination', tarballs], dir, 120_000);
      const made = readdirSync(tarballs).filter((f) => !before.has(f));
      if (made.length !== 1)
        throw new Error(`pnpm pack in ${dir} made ${made.join(', ') || 'nothing'}`);
      const tgz = join(tarballs, made[0] as string);
      const unpacked = join(work, 'unpacked', manifest.name);
      mkdirSync(unpacked, { recursive: true });
      execFileSync('tar', ['-xzf', tgz, '-C', unpacked, '--strip-components=1']);
      packed.set(manifest.name, {
        tgz,
        unpacked,
        files: tarballFiles(tgz),
        manifest: readJson<Manifest>(join(unpacked, 'package.json')),
        source: manifest,
      });
    }
  });

  afterAll(() => {
    if (!process.env['NODEREPAIR_KEEP_PACK_TEST']) rmSync(work, { recursive: true, force: true });
  });

  it('packs the five publishable packages', () => {
    expect([...packed.keys()].sort()).toEqual([
      '@noderepair/capo-remediation',
      '@noderepair/core',
      '@noderepair/envtest',
      '@noderepair/openstack',
      '@noderepair/overlayfs-gen',
    ]);
  });

  it('ships compiled JS and declarations for every entry point, and no sources, tests or build state', () => {
    for (const [name, p] of packed) {
      const files = new Set(p.files);
      const targets = entryPointTargets(p.manifest);
      expect(
        targets.filter((t) => !files.has(t)),
        `${name}: entry points missing from the tarball`,
      ).toEqual([]);
      // "./package.json" is there for tools that read the manifest (require.resolve of
      // '<pkg>/package.json'); every other subpath is a module with types and import.
      expect(p.manifest.exports?.['./package.json'], `${name} exports["./package.json"]`).toBe(
        './package.json',
      );
      for (const [sub, conds] of Object.entries(p.manifest.exports ?? {})) {
        if (sub === './package.json') continue;
        expect(typeof conds, `${name} exports["${sub}"]`).toBe('object');
        if (typeof conds === 'string') continue;
        expect(Object.keys(conds), `${name} exports["${sub}"]`).toEqual(['types', 'import']);
        expect(conds['types'], `${name} exports["${sub}"].types`).toMatch(/^\.\/dist\/.*\.d\.ts$/);
        expect(conds['import'], `${name} exports["${sub}"].import`).toMatch(/^\.\/dist\/.*\.js$/);
      }
      // The published map is the workspace map minus "source": the two cannot drift apart.
      expect(p.manifest.exports, `${name}: publishConfig.exports`).toEqual(
        withoutSourceCondition(p.source.exports),
      );
      const unwanted = p.files.filter(
        (f) =>
          f.startsWith('src/') ||
          f.endsWith('.tsbuildinfo') ||
          /(^|\/)(__tests__|__fixtures__)\//.test(f) ||
          /\.(test|spec|test-support|fixture)\.|(^|\/)vitest\.config\./.test(f),
      );
      expect(unwanted, `${name}: files that should not be published`).toEqual([]);
      expect(files.has('README.md'), `${name}: README.md`).toBe(true);
      // Every declaration file next to its JS (a d.ts-only or JS-only module breaks consumers).
      // A bin shim (bin/*.js) is a command, not a module: nothing imports it.
      const js = p.files.filter((f) => f.endsWith('.js') && !f.startsWith('bin/'));
      expect(
        js.filter((f) => !files.has(f.replace(/\.js$/, '.d.ts'))),
        `${name}: JS without d.ts`,
      ).toEqual([]);
    }
  });

  it('links its bins to committed files, so a fresh install links them before any build', () => {
    // pnpm links a workspace package's bins when it installs; a bin in dist/ (made by the
    // build) does not exist yet: "WARN Failed to create bin ... ENOENT" per dependent, and no link.
    const tracked = new Set(
      execFileSync('git', ['ls-files', 'packages'], { cwd: repo, encoding: 'utf8' })
        .split('\n')
        .filter((l) => l !== ''),
    );
    let bins = 0;
    for (const { dir, manifest } of publishable) {
      for (const [bin, target] of Object.entries(manifest.bin ?? {})) {
        bins++;
        const file = relative(repo, join(dir, target));
        expect(tracked.has(file), `${manifest.name} bin ${bin}: ${file} is in git`).toBe(true);
        expect(packed.get(manifest.name)!.files, `${manifest.name} bin ${bin}`).toContain(
          target.replace(/^\.\//, ''),
        );
      }
    }
    expect(bins).toBe(4);
  });

  it('ships no source maps (the sources are not shipped, so a map would point at nothing)', () => {
    for (const [name, p] of packed) {
      expect(
        p.files.filter((f) => f.endsWith('.map')),
        `${name}: .map files`,
      ).toEqual([]);
      const pointing = p.files.filter(
        (f) =>
          /\.(js|d\.ts)$/.test(f) &&
          readFileSync(join(p.unpacked, f), 'utf8').includes('//# sourceMappingURL='),
      );
      expect(pointing, `${name}: files with a sourceMappingURL comment`).toEqual([]);
    }
  });

  it('ships no module its entry points do not reach (test harnesses, fixtures, in-memory doubles)', () => {
    let modules = 0;
    for (const [name, p] of packed) {
      modules += p.files.filter((f) => f.endsWith('.js')).length;
      const orphans = unreachableModules(p.files, entryPointTargets(p.manifest), (f) =>
        readFileSync(join(p.unpacked, f), 'utf8'),
      );
      expect(orphans, `${name}: shipped modules no entry point imports`).toEqual([]);
    }
    expect(modules).toBeGreaterThan(100);
  });

  it('has no workspace: ranges left, and depends on the workspace versions of its siblings', () => {
    for (const [name, p] of packed) {
      for (const field of ['dependencies', 'peerDependencies'] as const) {
        for (const [dep, range] of Object.entries(p.manifest[field] ?? {})) {
          expect(range, `${name} ${field}.${dep}`).not.toMatch(/^workspace:/);
          const sibling = packed.get(dep);
          if (sibling)
            expect(range, `${name} ${field}.${dep}`).toBe(`^${sibling.manifest.version}`);
        }
      }
    }
  });

  it('imports at run time only what its dependencies and peer dependencies declare', () => {
    for (const [name, p] of packed) {
      const declared = new Set([
        ...Object.keys(p.manifest.dependencies ?? {}),
        ...Object.keys(p.manifest.peerDependencies ?? {}),
      ]);
      const undeclared = new Map<string, string>();
      for (const f of p.files.filter((f) => f.endsWith('.js'))) {
        for (const dep of bareImports(readFileSync(join(p.unpacked, f), 'utf8'))) {
          if (!declared.has(dep) && dep !== name) undeclared.set(dep, f);
        }
      }
      expect(
        Object.fromEntries(undeclared),
        `${name}: imports of undeclared packages (and where)`,
      ).toEqual({});
    }
  });

  // The same consumer at both ends of the peer ranges (test/consumer.ts): installed, compiled
  // and run on each end's Node, so a range in a package.json is a tested claim.
  for (const end of ends) {
    describe(`a consumer on ${end.title}`, () => {
      const app = join(work, `consumer-${end.id}`);
      let node = '';
      let env: NodeJS.ProcessEnv = cleanEnv;
      let wanted: Record<string, string> = {};

      beforeAll(() => {
        node = end.node();
        env = envWithNode(cleanEnv, node);
      });

      it(`installs from the tarballs with npm on Node ${end.nodeMajor}, outside the workspace`, async () => {
        expect(relative(repo, work).startsWith('..')).toBe(true);
        const { stdout: version } = await sh(node, ['--version'], work, 30_000, env);
        expect(version.trim()).toMatch(new RegExp(`^v${end.nodeMajor}\\.`));
        cpSync(consumerSrc, app, { recursive: true });
        const root = readJson<Manifest>(join(repo, 'package.json'));
        const core = packed.get('@noderepair/core')!.source;
        wanted = end.versions(core, root);
        const { '@types/node': typesNode, ...clients } = wanted;
        const deps: Record<string, string> = { ...clients };
        // What the READMEs' Install sections tell a consumer to add when its code imports them
        // (`npm install fp-ts yaml`, `npm install io-ts`): the newest, as those commands get.
        for (const lib of sharedLibraries) deps[lib] = 'latest';
        for (const [name, p] of packed) deps[name] = `file:${relative(app, p.tgz)}`;
        writeFileSync(
          join(app, 'package.json'),
          JSON.stringify(
            {
              name: 'noderepair-consumer',
              private: true,
              type: 'module',
              dependencies: deps,
              ...(end.overrides ? { overrides: end.overrides } : {}),
              devDependencies: {
                typescript: root.devDependencies!['typescript'],
                '@types/node': typesNode,
                // @kubernetes/client-node's declarations import 'ws' (through isomorphic-ws)
                // without shipping its types; a consumer that checks library declarations needs these.
                '@types/ws': '8.18.2',
                // The shipped docs' vitest blocks import it (envtest's optional peer, as its
                // README's Install says).
                ...(end.shippedDocs && {
                  vitest: packed.get('@noderepair/envtest')!.manifest.peerDependencies!['vitest'],
                }),
              },
            },
            null,
            2,
          ),
        );
        // npm (7+) refuses a client version outside a package's peer range (ERESOLVE), so a
        // passing install is the range check. --ignore-scripts: our packages have none.
        await sh(
          'npm',
          ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'],
          app,
          600_000,
          env,
        );
        for (const [name] of packed) {
          const installed = readJson<Manifest>(join(app, 'node_modules', name, 'package.json'));
          expect(installed.version, name).toBe(packed.get(name)!.manifest.version);
        }
        // capo-remediation's ^0.1.0 on core must be met by the core tarball, not by a second copy.
        const nested = readdirSync(
          join(app, 'node_modules', '@noderepair', 'capo-remediation'),
        ).includes('node_modules');
        expect(nested).toBe(false);
      });

      it('got the client versions of this end, one @kubernetes/client-node shared by core and envtest', () => {
        for (const name of [ClientNode, Kfc]) {
          const range = wanted[name]!;
          const want = /^\d+\.\d+\.\d+$/.test(range) ? range : newestMatching(name, range, env);
          expect(installedVersion(app, name, readJson), name).toBe(want);
        }
        // A second copy under core or envtest would make their KubeConfig types clash.
        for (const pkg of ['core', 'envtest'])
          expect(
            existsSync(
              join(app, 'node_modules', '@noderepair', pkg, 'node_modules', '@kubernetes'),
            ),
            `@noderepair/${pkg} has its own @kubernetes/client-node`,
          ).toBe(false);
      });

      it('has one copy each of fp-ts, io-ts and yaml: the newest, installed by the consumer, shared by the packages', () => {
        for (const lib of sharedLibraries) {
          // An exact pin below the newest nests a second copy under every package that pins it.
          expect(installedCopies(app, lib), `installed copies of ${lib}`).toEqual([
            join('node_modules', lib),
          ]);
          expect(installedVersion(app, lib, readJson), lib).toBe(
            newestMatching(lib, 'latest', env),
          );
        }
      });

      it("imports io-ts from the consumer's own dependency, and core's decodeStrict reads its codec", async () => {
        const code = `import * as t from 'io-ts';
import { decodeStrict } from '@noderepair/core/codec';
const Settings = t.partial({ interval: t.number });
console.log(JSON.stringify({
  resolved: import.meta.resolve('io-ts'),
  decoded: decodeStrict(Settings, { intervall: 5 }, 'settings'),
}));`;
        const { stdout } = await sh(node, ['--input-type=module', '-e', code], app, 60_000, env);
        const out = JSON.parse(stdout) as { resolved: string; decoded: unknown };
        expect(
          fileURLToPath(out.resolved).startsWith(join(app, 'node_modules', 'io-ts') + '/'),
        ).toBe(true);
        expect(out.decoded).toEqual({
          _tag: 'Left',
          left: [
            'settings.intervall: unknown field "intervall" (did you mean "interval"?); known fields: interval',
          ],
        });
      });

      it("has KFC's client-node pin shared at 1.4.0, or nested under KFC beside 2.x (the core README says which to install)", () => {
        const kfc = readJson<Manifest>(join(app, 'node_modules', Kfc, 'package.json'));
        const pin = kfc.dependencies![ClientNode]!;
        expect(pin, `${Kfc} ${kfc.version} dependencies.${ClientNode}`).toBe('1.4.0');
        const top = installedVersion(app, ClientNode, readJson);
        // The low end installs 1.4.0 itself (shared with KFC); the high end the newest 2.x.
        expect(top === pin, `${ClientNode} ${top} at the top`).toBe(end.nodeMajor === 20);
        const nested = join('node_modules', Kfc, 'node_modules', ClientNode);
        expect(installedCopies(app, ClientNode)).toEqual(
          top === pin
            ? [join('node_modules', ClientNode)]
            : [join('node_modules', ClientNode), nested],
        );
        if (top !== pin) {
          expect(top).toMatch(/^2\./);
          expect(readJson<Manifest>(join(app, nested, 'package.json')).version).toBe(pin);
        }
      });

      it("resolves and reads each package's package.json through its exports (tools read it)", async () => {
        // CommonJS require, as a tool does; `No "exports" main defined` / ERR_PACKAGE_PATH_NOT_EXPORTED
        // without the "./package.json" subpath.
        const names = [...packed.keys()];
        const code = `const m = require('node:module').createRequire(process.cwd() + '/');
console.log(JSON.stringify(${JSON.stringify(names)}.map((n) => {
  const file = m.resolve(n + '/package.json');
  const { name, version } = m(n + '/package.json');
  return { file, name, version };
})));`;
        const { stdout } = await sh(node, ['-e', code], app, 60_000, env);
        const read = JSON.parse(stdout) as { file: string; name: string; version: string }[];
        expect(read).toEqual(
          names.map((n) => ({
            file: join(app, 'node_modules', n, 'package.json'),
            name: n,
            version: packed.get(n)!.manifest.version,
          })),
        );
      });

      it('compiles the consumer controller with tsc (strict, NodeNext, library declarations checked)', async () => {
        await sh(
          node,
          [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
          app,
          300_000,
          env,
        );
        expect(readdirSync(join(app, 'dist')).sort()).toEqual(['controller.js', 'main.js']);
      });

      if (end.shippedDocs) {
        // The docs a user reads in node_modules (and on the registry's page): every TypeScript
        // block compiled as this consumer's own module, against the installed packages only.
        let modules = new Map<string, { file: string; line: number; run: boolean }>();

        it('compiles every TypeScript block of the docs the packages ship as its own module (strictest settings, library declarations checked)', async () => {
          const files = shippedMarkdown(app, [...packed.keys()]);
          // The READMEs are all the Markdown the tarballs ship, and the ones whose links
          // docs/tools/links.test.ts checks; a package that ships another .md must be added there.
          expect(files, 'the Markdown files the packages ship').toEqual(
            [...packed.keys()].map((n) => join('node_modules', n, 'README.md')).sort(),
          );
          const snippets = shippedSnippets(app, files);
          // Canaries compiled in the same run: blocks that compile only inside the workspace (a
          // repository path, a workspace-only package, a file the tarball does not export)
          // must fail here, each named by its file and line.
          // (The quote is spliced in so that examples/test/imports.test.ts, which reads this
          // file's own imports, does not take the canaries' text for them.)
          const q = "'";
          const canaries = extractSnippets(
            'canary/workspace-only.md',
            [
              '# Canaries',
              '```ts',
              `import { decideRepair } from ${q}../../packages/core/src/health/index.js${q};`,
              '```',
              '```ts',
              `import { runTrace } from ${q}@noderepair/sim${q};`,
              '```',
              '```ts',
              `import { main } from ${q}@noderepair/core/dist/cli/index.js${q};`,
              '```',
              '',
            ].join('\n'),
          );
          const written = writeSnippetProject(app, [...snippets, ...canaries]);
          modules = written;
          // Each README's blocks are in (a parser that found none would prove nothing).
          const perFile = new Map<string, number>();
          for (const s of written.values()) perFile.set(s.file, (perFile.get(s.file) ?? 0) + 1);
          expect(
            ['core', 'capo-remediation', 'overlayfs-gen', 'envtest', 'openstack'].filter(
              (p) => !perFile.has(join('node_modules', '@noderepair', p, 'README.md')),
            ),
            'shipped READMEs without a checked TypeScript block',
          ).toEqual([]);
          const tsc = join(app, 'node_modules', 'typescript', 'bin', 'tsc');
          let output = '';
          try {
            await run(node, [tsc, '-p', 'tsconfig.snippets.json'], {
              cwd: app,
              env,
              timeout: 300_000,
              maxBuffer: 64 * 1024 * 1024,
            });
          } catch (err) {
            const e = err as Error & { stdout?: string; stderr?: string };
            output = `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
          }
          const diagnostics = snippetDiagnostics(output, written);
          expect(
            diagnostics.filter((d) => d.startsWith('canary/')).map((d) => d.split(': TS')[0]),
            diagnostics.join('\n'),
          ).toEqual([
            'canary/workspace-only.md:3 (snippet at line 2)',
            'canary/workspace-only.md:6 (snippet at line 5)',
            'canary/workspace-only.md:9 (snippet at line 8)',
          ]);
          expect(
            diagnostics.filter((d) => d.startsWith('canary/')).every((d) => d.includes('TS2307')),
          ).toBe(true);
          expect(
            diagnostics.filter((d) => !d.startsWith('canary/')),
            'file:line, TS code, message',
          ).toEqual([]);
        });

        it('runs the blocks the shipped docs mark `ts run`, compiled, on this Node: exit 0, nothing on stderr', async () => {
          const runnable = [...modules].filter(([, s]) => s.run && !s.file.startsWith('canary/'));
          expect(runnable.length).toBeGreaterThanOrEqual(4);
          const failed: string[] = [];
          for (const [mod, s] of runnable) {
            try {
              const { stderr } = await run(node, [join(SNIPPET_OUT, `${mod}.js`)], {
                cwd: app,
                env,
                timeout: 60_000,
              });
              if (stderr !== '') failed.push(`${s.file}:${s.line}: stderr\n${stderr}`);
            } catch (err) {
              const e = err as Error & { stderr?: string };
              failed.push(`${s.file}:${s.line}: ${e.message.split('\n')[0]}\n${e.stderr ?? ''}`);
            }
          }
          expect(failed).toEqual([]);
        });

        // The five tasks of a first hour (issue 47), each from the section of a shipped README
        // a user follows: its blocks are the ones compiled (and run) above, or run here as the
        // section says.
        const readme = (pkg: string) =>
          readFileSync(join(app, 'node_modules', '@noderepair', pkg, 'README.md'), 'utf8');
        const shippedSection = (pkg: string, title: string) => {
          const sec = section(readme(pkg), title);
          if (sec === undefined)
            throw new Error(`node_modules/@noderepair/${pkg}/README.md has no section "${title}"`);
          return sec;
        };
        const tsBlock = (pkg: string, title: string) => {
          const sec = shippedSection(pkg, title);
          const file = join('node_modules', '@noderepair', pkg, 'README.md');
          const found = [...modules].find(
            ([, s]) => s.file === file && sec.blocks.some((b) => b.line === s.line),
          );
          if (!found) throw new Error(`${file} "${title}": no TypeScript block`);
          return { module: found[0], snippet: found[1] };
        };

        it('has a shipped section for each task: a pure decision and overlay generation as a library run above', () => {
          // (a) a pure decision, (c) the library: blocks marked `ts run`, which the test above ran.
          expect(tsBlock('core', 'A repair decision, pure (`health/`)').snippet.run).toBe(true);
          expect(tsBlock('overlayfs-gen', 'Library').snippet.run).toBe(true);
        });

        it("(c) generates an overlay with the CLI as the overlayfs-gen README's Quick start says", async () => {
          const sh = shippedSection('overlayfs-gen', 'Quick start').blocks.filter((b) =>
            /^(sh|bash)\b/.test(b.info),
          );
          expect(sh).toHaveLength(1);
          const dir = join(app, 'quick-start');
          mkdirSync(dir);
          // What a project that installed the package can run: its bin through npx, and the
          // config file the section writes. Anything else (a checkout's `pnpm install`, a
          // repository path) is refused before it runs: it would also rewrite this consumer.
          const commands = shellCommands(sh[0]!.code);
          expect(
            commands.filter((c) => !/^npx overlayfs-gen |^cat > [\w.-]+ <<'?YAML'?\n/.test(c)),
            'Quick start commands an npm user cannot run in their project',
          ).toEqual([]);
          const outputs: string[] = [];
          for (const cmd of commands) {
            const { stdout, stderr } = await run('bash', ['-euo', 'pipefail', '-c', cmd], {
              cwd: dir,
              env,
              timeout: 60_000,
            }).catch((e: Error & { stderr?: string }) => {
              throw new Error(`${cmd}\n${e.message}\n${e.stderr ?? ''}`);
            });
            outputs.push(stdout + stderr);
          }
          expect(outputs.join('')).toMatch(/node\.yaml is valid: \d+ volatile/);
          for (const f of ['cloud-init.yaml', 'kubeadm-config-template.yaml'])
            expect(existsSync(join(dir, 'out', f)), `out/${f}`).toBe(true);
          expect(readFileSync(join(dir, 'out', 'kubeadm-config-template.yaml'), 'utf8')).toContain(
            'kind: KubeadmConfigTemplate',
          );
        });

        it('(e) says in each README what its manifest says: entry points, engines, peer ranges', () => {
          const problems: string[] = [];
          for (const [name, p] of packed) {
            const text = readme(name.replace('@noderepair/', ''));
            const installed = readJson<Manifest>(join(app, 'node_modules', name, 'package.json'));
            for (const sub of Object.keys(installed.exports ?? {})) {
              if (sub === './package.json') continue;
              const spec = sub === '.' ? name : `${name}${sub.slice(1)}`;
              if (!text.includes(`\`${spec}\``)) problems.push(`${name}: entry point ${spec}`);
            }
            const engine = /^>=(\d+\.\d+)/.exec(installed.engines?.['node'] ?? '')?.[1];
            if (engine === undefined || !text.includes(`**Node** ${engine} or later`))
              problems.push(`${name}: engines.node ${installed.engines?.['node']}`);
            for (const [dep, range] of Object.entries(installed.peerDependencies ?? {})) {
              const optional = installed.peerDependenciesMeta?.[dep]?.optional === true;
              const said = `**\`${dep}\`** (${optional ? 'optional peer' : 'peer'}, \`${range}\`)`;
              if (!text.includes(said)) problems.push(`${name}: ${said}`);
            }
            expect(p.manifest.version).toBe(installed.version);
          }
          expect(problems, 'what the manifests say that the shipped READMEs do not').toEqual([]);
        });

        it("(b, d) runs the core README's embedded controller (own provider, leader election) on envtest, and noderepair status --json as its section says", async () => {
          const embed = tsBlock('core', 'Embedding the auto-repair controller');
          const status = shippedSection('core', '`noderepair status --json`');
          const statusSh = status.blocks.filter((b) => /^(sh|bash)\b/.test(b.info));
          expect(statusSh).toHaveLength(1);
          // The fields the shipped table names: `schemaVersion`, `nodes[].phase`, ...
          const documented = new Set(
            [...status.text.matchAll(/^\| `([\w[\].]+)` \|/gm)].map((m) => m[1]!),
          );
          // A control plane from the installed envtest: the test's own harness, not a doc.
          writeFileSync(
            join(app, 'envtest-harness.mjs'),
            `import { startControlPlane, startFakeKubelet } from '@noderepair/envtest';
const cp = await startControlPlane({});
const kubelet = await startFakeKubelet(cp.kubeConfig, { name: 'worker-1', providerID: 'my-cloud://worker-1', heartbeatSeconds: 2 });
console.log(JSON.stringify({ kubeconfig: cp.kubeconfigPath }));
process.stdin.resume();
process.stdin.on('end', async () => { await kubelet.stop(); await cp.stop(); process.exit(0); });
`,
          );
          const children: ReturnType<typeof spawn>[] = [];
          const started = (cmd: string, args: string[], extra: NodeJS.ProcessEnv) => {
            const child = spawn(cmd, args, { cwd: app, env: { ...env, ...extra } });
            children.push(child);
            let out = '';
            child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
            const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
            const until = async (what: RegExp, ms: number) => {
              const end = Date.now() + ms;
              while (!what.test(out)) {
                if (child.exitCode !== null || Date.now() > end)
                  throw new Error(
                    `${args.join(' ')}: no ${what} (exit ${child.exitCode}):\n${out.slice(-3000)}`,
                  );
                await new Promise((r) => setTimeout(r, 200));
              }
            };
            return { child, exited, until, out: () => out };
          };
          try {
            const harness = started(node, ['envtest-harness.mjs'], {});
            await harness.until(/"kubeconfig":/, 120_000);
            const kubeconfig = (
              JSON.parse(/^\{"kubeconfig":.*$/m.exec(harness.out())![0]) as { kubeconfig: string }
            ).kubeconfig;
            const envOfCluster = {
              KUBECONFIG: kubeconfig,
              POD_NAMESPACE: 'default',
              PROBE_PORT: '0',
            };
            const operator = started(node, [join(SNIPPET_OUT, `${embed.module}.js`)], envOfCluster);
            await operator.until(/"msg":"became leader"/, 60_000);
            await operator.until(
              /"msg":"auto-repair on".*"provider":"my-cloud"|"provider":"my-cloud".*"msg":"auto-repair on"/,
              60_000,
            );

            // (d) each command of the section's block, as written, against the same cluster.
            writeFileSync(join(app, 'policy.yaml'), '{}\n'); // "your policy": the defaults
            const reports: Record<string, unknown>[] = [];
            const commands = shellCommands(statusSh[0]!.code);
            expect(
              commands.filter((c) => !/^npx noderepair status .*--json/.test(c)),
              'status commands other than npx noderepair status --json',
            ).toEqual([]);
            for (const cmd of commands) {
              const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', cmd], {
                cwd: app,
                env: { ...env, ...envOfCluster },
                timeout: 60_000,
              }).catch((e: Error & { stderr?: string }) => {
                throw new Error(`${cmd}\n${e.message}\n${e.stderr ?? ''}`);
              });
              reports.push(JSON.parse(stdout) as Record<string, unknown>);
            }
            expect(reports.length).toBeGreaterThanOrEqual(2);
            const undocumented = new Set<string>();
            for (const r of reports) {
              expect(r['schemaVersion']).toBe(1);
              const nodes = r['nodes'] as Record<string, unknown>[];
              expect(nodes.map((n) => n['name'])).toContain('worker-1');
              for (const k of Object.keys(r)) if (!documented.has(k)) undocumented.add(k);
              for (const n of nodes)
                for (const k of Object.keys(n))
                  if (!documented.has(`nodes[].${k}`)) undocumented.add(`nodes[].${k}`);
            }
            expect([...undocumented], 'printed fields the shipped table does not name').toEqual([]);

            // SIGTERM, as the section says: stopped leading, exit 0.
            operator.child.kill('SIGTERM');
            expect(await operator.exited, operator.out().slice(-3000)).toBe(0);
            expect(operator.out()).toContain('"msg":"stopped leading: shutting down"');
            harness.child.stdin!.end();
            expect(await harness.exited).toBe(0);
          } finally {
            for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
          }
        });
      }

      it('runs the compiled controller on envtest: Unknown node -> Nova HARD reboot -> Healthy', async () => {
        const overlay = join(repo, 'examples', 'overlay', 'kubeadm-node.yaml');
        const { stdout } = await sh(node, ['dist/main.js', overlay], app, 280_000, env);
        const summaries = stdout
          .split('\n')
          .filter((l) => l.startsWith('{"summary":'))
          .map((l) => (JSON.parse(l) as { summary: Record<string, unknown> }).summary);
        expect(summaries, stdout.slice(-3000)).toHaveLength(1);
        const summary = summaries[0]!;
        expect(summary['node']).toMatch(new RegExp(`^v${end.nodeMajor}\\.`));
        expect(summary['kubernetesVersion']).toMatch(/^v1\.35\./);
        // NotStarted may come first, before the fake kubelet's first status post.
        expect((summary['causes'] as string[]).slice(-3)).toEqual([
          'Healthy',
          'KubeletUnreachable',
          'Healthy',
        ]);
        expect(summary).toMatchObject({
          hardReboots: 1,
          softReboots: 0,
          rebootedTheFirstBoot: true,
          bootIdChanged: true,
          serverStatus: 'ACTIVE',
        });
        expect(summary['overlayFiles']).toContain('/usr/local/lib/noderepair/overlay-boot.sh');
      });

      it('runs the installed bins on this Node: noderepair simulate, overlayfs-gen validate, ...', async () => {
        const bin = (name: string) => join(app, 'node_modules', '.bin', name);
        const traces = join(repo, 'examples', 'traces');
        const sim = await sh(
          bin('noderepair'),
          [
            'simulate',
            '--json',
            '--policy',
            join(traces, 'policy.yaml'),
            '--trace',
            join(traces, 'kubelet-stop.jsonl'),
          ],
          app,
          60_000,
          env,
        );
        const decisions = sim.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as unknown);
        expect(decisions.length).toBeGreaterThan(0);
        expect(sim.stdout).toContain('SoftReboot');
        const valid = await sh(
          bin('overlayfs-gen'),
          ['validate', '--config', join(repo, 'examples', 'overlay', 'kubeadm-node.yaml')],
          app,
          60_000,
          env,
        );
        expect(valid.stdout).toMatch(/kubeadm-node\.yaml is valid: \d+ volatile/);
        const capo = await sh(bin('capo-remediation-controller'), ['--help'], app, 60_000, env);
        expect(capo.stdout).toContain('--kubeconfig');
        // The packed envtest finds the binaries this test already ran on (the shared cache).
        const assets = execFileSync(bin('noderepair-envtest'), ['assets'], {
          encoding: 'utf8',
          env,
        });
        expect(assets.trim().split('\n').pop()).toMatch(/noderepair\/envtest\/v1\.35\.\d+\/?$/);
      });
    });
  }

  // An unpinned `npm install @noderepair/core` on Node 20 picks client-node 2.x, whose undici 8
  // needs Node >= 22.19.0 (npm only warns: EBADENGINE). Its first import would crash deep in
  // undici ("Cannot read properties of undefined (reading 'bind')"); core and envtest check
  // first and say what to install instead.
  describe('a consumer on Node 20 that installed @kubernetes/client-node 2.x', () => {
    const app = join(work, 'consumer-node20-client-node-2');

    beforeAll(async () => {
      mkdirSync(app);
      const core = packed.get('@noderepair/core')!;
      const deps: Record<string, string> = {
        '@kubernetes/client-node': '^2.0.0',
        // The newest KFC 3.x cannot install as published (test/consumer.ts); its pin is not
        // what this test is about.
        'kubernetes-fluent-client': core.source.devDependencies!['kubernetes-fluent-client']!,
      };
      for (const name of ['@noderepair/core', '@noderepair/envtest'])
        deps[name] = `file:${relative(app, packed.get(name)!.tgz)}`;
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({
          name: 'client-node-2-on-node-20',
          private: true,
          type: 'module',
          dependencies: deps,
        }),
      );
      await sh(
        'npm',
        ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'],
        app,
        600_000,
      );
    });

    /** Imports `specifier` on this machine's Node 20; the error message if that throws. */
    async function importError(specifier: string): Promise<string | undefined> {
      const code = `import(${JSON.stringify(specifier)}).then(() => {}, (e) => { console.log(JSON.stringify(String(e?.message ?? e))); process.exitCode = 3; });`;
      try {
        await run(process.execPath, ['-e', code], { cwd: app, env: cleanEnv, timeout: 60_000 });
        return undefined;
      } catch (err) {
        const e = err as Error & { stdout?: string; code?: unknown };
        expect(e.code, `${specifier}: exit code (stderr: ${e.message})`).toBe(3);
        return JSON.parse(e.stdout!.trim().split('\n').pop()!) as string;
      }
    }

    it('installed client-node 2.x on Node 20', () => {
      expect(process.versions.node).toMatch(/^20\./);
      expect(installedVersion(app, '@kubernetes/client-node', readJson)).toMatch(/^2\./);
    });

    for (const specifier of ['@noderepair/envtest', '@noderepair/core/kfc']) {
      it(`fails to import ${specifier} with what to install instead`, async () => {
        const version = installedVersion(app, '@kubernetes/client-node', readJson);
        const message = await importError(specifier);
        expect(message).toContain(
          `@kubernetes/client-node ${version} needs Node >= 22.19.0 (its undici 8 does); this is Node ${process.versions.node}`,
        );
        expect(message).toContain(
          'on Node 20 install 1.4.x (npm install @kubernetes/client-node@~1.4.0)',
        );
      });
    }

    it('still imports @noderepair/core, which does not load client-node', async () => {
      expect(await importError('@noderepair/core')).toBeUndefined();
    });
  });

  // KFC after 3.11.6 needs Node >= 22.19 (its engines, and its exact undici 8.10.0 pin); npm
  // installs it on Node 20 anyway when asked (EBADENGINE is a warning). The core README's
  // Install says what then happens, and that core's client-node check does not catch it: the
  // import fails inside undici. This pins that statement to what npm and Node really do.
  describe('a consumer on Node 20 that installed the newest kubernetes-fluent-client', () => {
    const app = join(work, 'consumer-node20-newest-kfc');
    let npmOutput = '';
    let kfc = '';

    beforeAll(async () => {
      mkdirSync(app);
      const core = packed.get('@noderepair/core')!;
      kfc = newestMatching(Kfc, core.source.peerDependencies![Kfc]!, cleanEnv);
      writeFileSync(
        join(app, 'package.json'),
        JSON.stringify({
          name: 'newest-kfc-on-node-20',
          private: true,
          type: 'module',
          dependencies: {
            [ClientNode]: core.source.devDependencies![ClientNode]!,
            [Kfc]: kfc,
            '@noderepair/core': `file:${relative(app, core.tgz)}`,
          },
          // The pin the registry lacks (test/consumer.ts), overridden as the README says.
          overrides: ends.find((e) => e.overrides)!.overrides,
        }),
      );
      const r = await sh(
        'npm',
        ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefer-offline'],
        app,
        600_000,
      );
      npmOutput = r.stdout + r.stderr;
    });

    it('installs with npm warning EBADENGINE for KFC (node >=22.19.0)', () => {
      expect(installedVersion(app, Kfc, readJson)).toBe(kfc);
      expect(readJson<Manifest>(join(app, 'node_modules', Kfc, 'package.json')).engines).toEqual({
        node: '>=22.19.0',
      });
      expect(npmOutput).toMatch(/EBADENGINE[\s\S]*package: 'kubernetes-fluent-client@/);
    });

    it("fails to import @noderepair/core/kfc with undici's TypeError, as the core README says", async () => {
      const code = `import('@noderepair/core/kfc').then(() => console.log(JSON.stringify('imported')), (e) => { console.log(JSON.stringify(String(e?.message ?? e))); process.exit(3); });`;
      const out = await run(process.execPath, ['-e', code], {
        cwd: app,
        env: cleanEnv,
        timeout: 60_000,
      }).then(
        (r) => r.stdout,
        (e: Error & { stdout?: string }) => e.stdout ?? '',
      );
      const message = JSON.parse(out.trim().split('\n')[0] ?? '""') as string;
      expect(message).toBe('webidl.util.markAsUncloneable is not a function');
      const readme = readFileSync(
        join(app, 'node_modules', '@noderepair', 'core', 'README.md'),
        'utf8',
      );
      expect(readme).toContain(`undici's \`TypeError: ${message}\``);
    });
  });
});
