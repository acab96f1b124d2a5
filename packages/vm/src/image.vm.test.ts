// Every image is built from a copy of the cached debootstrap rootfs, so an image never holds
// files another image was built with, whatever order the suites build them in. (The default
// image used to be built in the shared rootfs itself, and the node image inherited its files.)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { GUEST_FILES } from './guest-files.js';
import { ensureImage, vmCacheDir } from './image.js';

it('builds the default image from a copy: the shared debootstrap rootfs keeps none of its files', () => {
  const image = ensureImage();
  expect(existsSync(image.disk)).toBe(true);
  const rootfs = join(vmCacheDir(), 'rootfs');
  expect(existsSync(join(rootfs, 'usr/bin/systemctl'))).toBe(true);
  // The agent's own files (debootstrap has an /etc/fstab and /etc/hostname of its own).
  const agentFiles = Object.keys(GUEST_FILES).filter((p) => /vm-agent|noderepair/.test(p));
  expect(agentFiles.length).toBeGreaterThanOrEqual(3);
  for (const path of agentFiles) expect(existsSync(join(rootfs, path)), path).toBe(false);
  expect(existsSync(join(vmCacheDir(), 'rootfs.build'))).toBe(false);
});
