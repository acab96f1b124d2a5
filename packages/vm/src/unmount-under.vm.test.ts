// build-rootfs.sh removes a half-built rootfs before debootstrapping again. A debootstrap that
// was killed leaves the host's /proc and /sys mounted inside it, and `rm -rf` then fails on
// /proc files: CI failed that way once. unmount-under.sh is what build-rootfs.sh runs first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./unmount-under.sh', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'noderepair-unmount-'));
const mountsUnder = (d: string) =>
  readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .filter((l) => l.split(' ')[1]?.startsWith(`${d}/`));

afterAll(() => {
  for (const l of mountsUnder(dir).reverse()) spawnSync('umount', ['-l', l.split(' ')[1]!]);
  rmSync(dir, { recursive: true, force: true });
});

it('unmounts what a killed debootstrap left mounted, deepest first, so the directory can be removed', () => {
  const target = join(dir, 'rootfs.tmp');
  for (const sub of ['proc', 'sys', 'dev/pts']) mkdirSync(join(target, sub), { recursive: true });
  const mount = (args: string[]) => expect(spawnSync('mount', args).status).toBe(0);
  mount(['-t', 'proc', 'proc', join(target, 'proc')]);
  mount(['-t', 'sysfs', 'sys', join(target, 'sys')]);
  mount(['-t', 'tmpfs', 'dev', join(target, 'dev')]);
  mkdirSync(join(target, 'dev/pts'));
  mount(['-t', 'tmpfs', 'pts', join(target, 'dev/pts')]);
  expect(mountsUnder(target)).toHaveLength(4);
  // Without the unmount, rm -rf fails on the host's /proc files.
  expect(spawnSync('rm', ['-rf', target]).status).not.toBe(0);

  const r = spawnSync(
    'sh',
    ['-c', `. "${script}" && unmount_under "${target}" && rm -rf "${target}"`],
    {
      encoding: 'utf8',
    },
  );
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(mountsUnder(target)).toEqual([]);
  expect(existsSync(target)).toBe(false);
});
