// The cached VM image: debootstrap once (build-rootfs.sh), then an ext4 image with the test
// agent and the caller's files baked in, rebuilt only when those inputs change. Everything
// lives under ~/.cache/noderepair/vm/, never in the repository.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUEST_FILES, GUEST_LINKS, type GuestFile } from './guest-files.js';
import { debianSource } from './mirror.js';

export interface VmImage {
  readonly disk: string;
  readonly kernel: string;
  readonly initrd: string;
}

function sh(cmd: string, args: string[], timeoutMs: number): void {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error || r.status !== 0) {
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stdout ?? '').slice(-3000)}\n${(r.stderr ?? '').slice(-3000)}`,
    );
  }
}

export interface ImageOptions {
  /**
   * Several packages boot VMs with different contents: a named image gets its own folder
   * (~/.cache/noderepair/vm/<suite>/<name>/, its own stamp). Without a name: the default
   * image, in the suite folder itself (<suite>/disk.ext4). Every image is built from a fresh
   * copy of the debootstrap rootfs, which stays as debootstrap left it: no image holds another
   * one's files, whatever order they were built in.
   */
  readonly name?: string;
  /** Written into the guest beside the test agent's files (the caller's services, say). */
  readonly files?: Readonly<Record<string, GuestFile>>;
  /** Symlinks (path -> target) beside the agent's, e.g. what `systemctl enable` would create. */
  readonly links?: Readonly<Record<string, string>>;
  /**
   * Changes the image's rootfs after the files are written, before the initramfs and mkfs.
   * Named images only (the default image is the plain VM). It runs on their copy. Its
   * source text is part of the stamp, so editing it rebuilds the image; anything it reads
   * from elsewhere is not (change the function or the files when that changes).
   */
  readonly customize?: (rootfs: string) => void;
  /** Size of the ext4 image (mkfs.ext4's size argument); default '2G'. */
  readonly diskSize?: string;
}

const unmountUnder = fileURLToPath(new URL('./unmount-under.sh', import.meta.url));

/** The suite's cache folder: the debootstrap `rootfs/`, the default image, named images' folders. */
export function vmCacheDir(): string {
  return join(homedir(), '.cache/noderepair/vm', debianSource().suite);
}

export function ensureImage(opts: ImageOptions = {}): VmImage {
  const { name, customize, diskSize = '2G' } = opts;
  if (name !== undefined && !/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new Error(`image name must match [a-z0-9][a-z0-9-]*: ${JSON.stringify(name)}`);
  if (name === 'rootfs') throw new Error('image name "rootfs" is the debootstrap cache');
  if (customize && name === undefined)
    throw new Error('customize needs a named image: the default one is the plain VM');
  const { mirror, suite } = debianSource();
  const cache = vmCacheDir();
  const builder = fileURLToPath(new URL('./build-rootfs.sh', import.meta.url));
  sh('sh', [builder, cache, mirror, suite], 30 * 60_000);
  const dir = name === undefined ? cache : join(cache, name);
  mkdirSync(dir, { recursive: true });

  const files = { ...GUEST_FILES, ...opts.files };
  const links = { ...GUEST_LINKS, ...opts.links };
  // The debootstrap stamp too: a rebuilt base rootfs (another mirror) rebuilds the image.
  const base = readFileSync(join(cache, 'rootfs.stamp'), 'utf8');
  const stampWant = createHash('sha256')
    .update(
      JSON.stringify([files, links, customize?.toString() ?? null, diskSize, base, 'image v3']),
    )
    .digest('hex');
  const stamp = join(dir, 'image.stamp');
  const disk = join(dir, 'disk.ext4');
  const kernel = join(dir, 'vmlinuz');
  const initrd = join(dir, 'initrd.img');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === stampWant && existsSync(disk))
    return { disk, kernel, initrd };

  // A fresh copy each build, so nothing a previous build or customize did stays behind
  // (unmounting first what a killed customize may have left mounted in it). Image names have
  // no dot, so the default image's copy cannot meet a named image's folder.
  const rootfs = join(dir, name === undefined ? 'rootfs.build' : 'rootfs');
  sh('sh', ['-c', '. "$1" && unmount_under "$2"', 'sh', unmountUnder, rootfs], 60_000);
  rmSync(rootfs, { recursive: true, force: true });
  sh('cp', ['-a', '--reflink=auto', join(cache, 'rootfs'), rootfs], 10 * 60_000);
  for (const [path, f] of Object.entries(files)) {
    const p = join(rootfs, path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
    chmodSync(p, f.mode);
  }
  for (const [link, target] of Object.entries(links)) {
    const p = join(rootfs, link);
    mkdirSync(dirname(p), { recursive: true });
    rmSync(p, { force: true });
    symlinkSync(target, p);
  }
  customize?.(rootfs);
  sh('chroot', [rootfs, 'update-initramfs', '-u', '-k', 'all'], 10 * 60_000);
  const boot = readdirSync(join(rootfs, 'boot'));
  const vmlinuz = boot.find((f) => f.startsWith('vmlinuz-'));
  const initrdImg = boot.find((f) => f.startsWith('initrd.img-'));
  if (!vmlinuz || !initrdImg)
    throw new Error(`no kernel/initrd in ${rootfs}/boot (linux-image-amd64 not installed?)`);
  copyFileSync(join(rootfs, 'boot', vmlinuz), kernel);
  copyFileSync(join(rootfs, 'boot', initrdImg), initrd);
  rmSync(disk, { force: true });
  // mkfs.ext4 -d copies the tree with owners and modes: no loop mount needed.
  // No lazy inode-table init: under TCG the guest's ext4lazyinit thread would eat the CPU.
  const noLazyInit = 'lazy_itable_init=0,lazy_journal_init=0';
  sh(
    'mkfs.ext4',
    ['-q', '-F', '-L', 'root', '-E', noLazyInit, '-d', rootfs, disk, diskSize],
    10 * 60_000,
  );
  // The disk holds everything now; the copy would only take another ~750 MB.
  rmSync(rootfs, { recursive: true, force: true });
  writeFileSync(stamp, stampWant);
  return { disk, kernel, initrd };
}
