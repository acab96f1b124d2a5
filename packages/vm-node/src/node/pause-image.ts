// The sandbox ("pause") image, built here: no registry is reachable, and containerd needs the
// image its config names before it can start any pod. A static binary in one layer, written as
// a `docker save` archive, which `ctr images import` reads (tag included).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSync as run } from './run.js';

/** The sandbox image containerd is configured with (guest-files.ts) and the archive is tagged. */
export const PAUSE_IMAGE = 'registry.k8s.io/pause:3.10.1';

/** Builds the archive in `dir` (emptied first) and returns its path. Needs gcc and libc6-dev. */
export function buildPauseImage(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  const layerRoot = join(dir, 'layer');
  mkdirSync(layerRoot, { recursive: true });
  const source = fileURLToPath(new URL('./pause.c', import.meta.url));
  run('gcc', ['-static', '-Os', '-s', '-o', join(layerRoot, 'pause'), source]);
  // Fixed owners and times: the same source gives the same layer digest.
  const tar = ['--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--sort=name'];
  run('tar', [...tar, '-C', layerRoot, '-cf', join(dir, 'layer.tar'), 'pause']);
  const diffId = createHash('sha256')
    .update(readFileSync(join(dir, 'layer.tar')))
    .digest('hex');
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: { Entrypoint: ['/pause'], User: '65535:65535' },
    rootfs: { type: 'layers', diff_ids: [`sha256:${diffId}`] },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify([{ Config: 'config.json', RepoTags: [PAUSE_IMAGE], Layers: ['layer.tar'] }]),
  );
  const archive = join(dir, 'pause-image.tar');
  run('tar', [...tar, '-C', dir, '-cf', archive, 'manifest.json', 'config.json', 'layer.tar']);
  return archive;
}
