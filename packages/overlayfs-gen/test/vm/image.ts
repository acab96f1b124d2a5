// The cached VM image: debootstrap once (build-rootfs.sh), then an ext4 image with the test
// agent and dummy service baked in, rebuilt only when those files change. Everything lives
// under ~/.cache/noderepair/vm/, never in the repository.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUEST_FILES, GUEST_LINKS } from './guest-files.js';
import { debianSource } from './mirror.js';

export interface VmImage {
  readonly disk: string;
  readonly kernel: string;
  readonly initrd: string;
}

function sh(cmd: string, args: string[], timeoutMs: number): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stdout ?? '').slice(-3000)}\n${(r.stderr ?? '').slice(-3000)}`);
  }
}

export function ensureImage(): VmImage {
  const { mirror, suite } = debianSource();
  const cache = join(homedir(), '.cache/noderepair/vm', suite);
  const builder = fileURLToPath(new URL('./build-rootfs.sh', import.meta.url));
  sh('sh', [builder, cache, mirror, suite], 30 * 60_000);
  const rootfs = join(cache, 'rootfs');

  const stampWant = createHash('sha256').update(JSON.stringify([GUEST_FILES, GUEST_LINKS, 'image v3'])).digest('hex');
  const stamp = join(cache, 'image.stamp');
  const disk = join(cache, 'disk.ext4');
  const kernel = join(cache, 'vmlinuz');
  const initrd = join(cache, 'initrd.img');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === stampWant && existsSync(disk)) return { disk, kernel, initrd };

  for (const [path, f] of Object.entries(GUEST_FILES)) {
    const p = join(rootfs, path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
    chmodSync(p, f.mode);
  }
  for (const [link, target] of Object.entries(GUEST_LINKS)) {
    const p = join(rootfs, link);
    mkdirSync(dirname(p), { recursive: true });
    rmSync(p, { force: true });
    symlinkSync(target, p);
  }
  sh('chroot', [rootfs, 'update-initramfs', '-u', '-k', 'all'], 10 * 60_000);
  const boot = readdirSync(join(rootfs, 'boot'));
  const vmlinuz = boot.find((f) => f.startsWith('vmlinuz-'));
  const initrdImg = boot.find((f) => f.startsWith('initrd.img-'));
  if (!vmlinuz || !initrdImg) throw new Error(`no kernel/initrd in ${rootfs}/boot (linux-image-amd64 not installed?)`);
  copyFileSync(join(rootfs, 'boot', vmlinuz), kernel);
  copyFileSync(join(rootfs, 'boot', initrdImg), initrd);
  rmSync(disk, { force: true });
  // mkfs.ext4 -d copies the tree with owners and modes: no loop mount needed.
  // No lazy inode-table init: under TCG the guest's ext4lazyinit thread would eat the CPU.
  sh('mkfs.ext4', ['-q', '-F', '-L', 'root', '-E', 'lazy_itable_init=0,lazy_journal_init=0', '-d', rootfs, disk, '2G'], 10 * 60_000);
  writeFileSync(stamp, stampWant);
  return { disk, kernel, initrd };
}
