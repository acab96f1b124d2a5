// podman as this project runs it: daemonless, its own image store under the cache (vfs: no
// overlay mounts needed, so it works in any container or VM CI gives us), runc and cgroupfs
// (crun fails on hybrid cgroup hosts), host network, and ulimits podman may set here.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot, exec, type ExecOptions } from './exec.js';

/** Where the project's podman keeps its images: warm machines keep their base images. */
export function storageDir(): string {
  return join(cacheRoot(), 'images', 'storage');
}

/** podman's global flags: our store (not the machine's default one), runc, cgroupfs. */
export function globalFlags(): string[] {
  const root = storageDir();
  mkdirSync(root, { recursive: true });
  return [
    '--root',
    root,
    '--runroot',
    '/run/noderepair-podman',
    '--storage-driver',
    'vfs',
    '--runtime',
    'runc',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'file',
  ];
}

/** The flags every container of ours runs with (see the podman notes in the README). */
export const RUN_FLAGS = [
  '--network',
  'host',
  '--ulimit',
  'nofile=20000:20000',
  '--ulimit',
  'nproc=4096:4096',
] as const;

export function podman(args: readonly string[], o: ExecOptions = {}): Promise<string> {
  return exec('podman', [...globalFlags(), ...args], o);
}

export async function imageExists(ref: string): Promise<boolean> {
  return podman(['image', 'exists', ref]).then(
    () => true,
    () => false,
  );
}

/** The image's size as podman reports it (bytes, uncompressed layers). */
export async function imageSize(ref: string): Promise<number> {
  return Number((await podman(['image', 'inspect', '--format', '{{.Size}}', ref])).trim());
}
