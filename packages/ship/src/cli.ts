// `pnpm ship <command>` (root package.json): the image and bundle steps as a person runs them.
//   tools                  build helm and kubectl into ~/.cache/noderepair (once)
//   base                   assemble the local Node base images (CI's stand-in for the public ones)
//   context <name> <dir>   write an image's build context (packed packages, lock, npm cache)
//   build <name> [tag]     context + podman build on the local bases (tag: the package version)
//   bundles [--check]      render deploy/*/install.yaml (and the chart CRDs); --check: fail if stale
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureBaseImages } from './base-image.js';
import { generatedFiles, writeBundles } from './bundles.js';
import { repoRoot } from './exec.js';
import { buildImage, IMAGES, makeContext, removeContext, type ControllerName } from './images.js';
import { ensureTool, ensureTools } from './tools.js';

const [cmd, ...rest] = process.argv.slice(2);
const name = (n: string | undefined): ControllerName => {
  if (n !== 'capo-remediation' && n !== 'noderepair')
    throw new Error(
      `expected an image name, capo-remediation or noderepair; got ${JSON.stringify(n)}`,
    );
  return n;
};
const version = () =>
  (
    JSON.parse(readFileSync(join(repoRoot, 'packages', 'core', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

async function main(): Promise<number> {
  switch (cmd) {
    case 'tools':
      console.log(await ensureTools());
      return 0;
    case 'base':
      console.log(await ensureBaseImages());
      return 0;
    case 'context': {
      const dir = rest[1];
      if (!dir) throw new Error('usage: ship context <name> <dir>');
      console.log(await makeContext(IMAGES[name(rest[0])], { dir }));
      return 0;
    }
    case 'build': {
      const spec = IMAGES[name(rest[0])];
      const bases = await ensureBaseImages();
      const ctx = await makeContext(spec);
      try {
        console.log(await buildImage(spec, ctx, rest[1] ?? version(), { bases }));
      } finally {
        removeContext(ctx);
      }
      return 0;
    }
    case 'bundles': {
      const kubectl = await ensureTool('kubectl');
      if (rest[0] === '--check') {
        const stale = [...(await generatedFiles(kubectl))].filter(([f, text]) => {
          try {
            return readFileSync(f, 'utf8') !== text;
          } catch {
            return true;
          }
        });
        for (const [f] of stale)
          console.error(`stale: ${relative(repoRoot, f)} (run pnpm ship bundles)`);
        return stale.length ? 1 : 0;
      }
      for (const f of await writeBundles(kubectl)) console.log(`wrote ${relative(repoRoot, f)}`);
      return 0;
    }
    default:
      console.error(
        'usage: pnpm ship tools|base|context <name> <dir>|build <name> [tag]|bundles [--check]',
      );
      return 2;
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`ship: ${(e as Error).message}`);
    process.exit(1);
  },
);
