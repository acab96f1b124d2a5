// `pnpm release --dry-run`: what a release would publish, made for real and published nowhere.
// In a temporary git worktree of HEAD: changesets apply the pending versions (changeset
// version), the packages are built and packed, both images are built with podman from their
// Containerfiles tagged with those versions, the kustomize bundles are rendered with the new
// image tags, and the charts are packaged with the new versions. Everything lands in
// reports/release-dry-run/ and a summary says what would be published.
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ensureBaseImages } from './base-image.js';
import { BUNDLES } from './bundles.js';
import { exec, repoRoot, stderrProgress } from './exec.js';
import { buildImage, IMAGES, makeContext, removeContext } from './images.js';
import { ensureTools } from './tools.js';

const progress = stderrProgress;
const sha256 = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
}

async function main(argv: string[]): Promise<number> {
  if (!argv.includes('--dry-run')) {
    console.error(
      'pnpm release: only --dry-run is implemented here (no registry is reachable to publish to)',
    );
    return 2;
  }
  const dirty = (await exec('git', ['status', '--porcelain'])).trim();
  if (dirty)
    progress('release: uncommitted changes are not part of a release (it is made from HEAD)');
  const out = join(repoRoot, 'reports', 'release-dry-run');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'npm'), { recursive: true });
  const { helm, kubectl } = await ensureTools(progress);
  const wt = mkdtempSync(join(tmpdir(), 'noderepair-release-'));
  await exec('git', ['worktree', 'add', '--detach', wt, 'HEAD']);
  try {
    progress('release: pnpm install, changeset version, build');
    await exec('pnpm', ['install', '--frozen-lockfile', '--offline'], { cwd: wt }).catch(() =>
      exec('pnpm', ['install', '--frozen-lockfile'], { cwd: wt }),
    );
    const pending = readdirSync(join(wt, '.changeset')).filter(
      (f) => f.endsWith('.md') && f !== 'README.md',
    );
    if (pending.length) await exec('pnpm', ['exec', 'changeset', 'version'], { cwd: wt });
    else progress('release: no pending changesets; the current versions would be published');
    await exec('pnpm', ['run', 'build'], { cwd: wt });
    const publishable = readdirSync(join(wt, 'packages'))
      .sort()
      .map((d) => ({
        dir: join(wt, 'packages', d),
        m: JSON.parse(readFileSync(join(wt, 'packages', d, 'package.json'), 'utf8')) as Manifest,
      }))
      .filter((p) => !p.m.private);
    const tarballs = new Map<string, string>();
    for (const p of publishable) {
      const before = new Set(readdirSync(join(out, 'npm')));
      await exec('pnpm', ['pack', '--pack-destination', join(out, 'npm')], { cwd: p.dir });
      const made = readdirSync(join(out, 'npm')).filter((f) => !before.has(f));
      tarballs.set(p.m.name, join(out, 'npm', made[0] as string));
    }
    const versionOf = (name: string) =>
      publishable.find((p) => p.m.name === name)?.m.version as string;

    progress('release: images');
    const bases = await ensureBaseImages(progress);
    const images: Array<{ ref: string; size: number }> = [];
    const tags: Record<string, string> = {};
    for (const spec of Object.values(IMAGES)) {
      // The image carries the version of the package whose program it runs.
      const tag = versionOf(spec.program);
      tags[spec.name] = tag;
      const ctx = await makeContext(spec, { tarballs });
      try {
        images.push(await buildImage(spec, ctx, tag, { bases, progress }));
      } finally {
        removeContext(ctx);
      }
    }

    progress('release: bundles and charts');
    const bundles: string[] = [];
    for (const b of Object.values(BUNDLES)) {
      const overlay = join(wt, '.release', b.name);
      mkdirSync(overlay, { recursive: true });
      writeFileSync(
        join(overlay, 'kustomization.yaml'),
        [
          'apiVersion: kustomize.config.k8s.io/v1beta1',
          'kind: Kustomization',
          'resources:',
          `  - ${relative(overlay, join(wt, b.kustomization))}`,
          'images:',
          `  - name: ${IMAGES[b.name].repository}`,
          `    newTag: "${tags[b.name]}"`,
          '',
        ].join('\n'),
      );
      const file = join(out, `${b.name}-install.yaml`);
      writeFileSync(file, await exec(kubectl, ['kustomize', overlay]));
      bundles.push(file);
      await exec(helm, [
        'package',
        join(wt, b.chart),
        '--version',
        tags[b.name] as string,
        '--app-version',
        tags[b.name] as string,
        '--destination',
        join(out, 'charts'),
      ]);
    }

    const lines = [
      '',
      '==> release --dry-run: would publish (nothing was published)',
      '',
      'npm (npm publish --access public):',
    ];
    for (const [n, f] of tarballs)
      lines.push(`  ${n}@${versionOf(n)}  ${relative(repoRoot, f)}  ${mb(statSync(f).size)}`);
    lines.push('', 'images (podman push):');
    for (const i of images) lines.push(`  ${i.ref}  ${mb(i.size)}`);
    lines.push('', 'install bundles (release assets):');
    for (const f of bundles)
      lines.push(`  ${relative(repoRoot, f)}  sha256 ${sha256(f).slice(0, 16)}`);
    lines.push('', 'Helm charts (helm push to the chart repository):');
    for (const f of readdirSync(join(out, 'charts')).sort())
      lines.push(`  ${relative(repoRoot, join(out, 'charts', f))}`);
    console.log(lines.join('\n'));
    return 0;
  } finally {
    await exec('git', ['worktree', 'remove', '--force', wt]).catch(() => undefined);
    rmSync(wt, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`release: ${(e as Error).message}`);
    process.exit(1);
  },
);
