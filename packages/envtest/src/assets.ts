import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Kubernetes release the tools modules pin (tools/kube/go.mod). */
export const KUBERNETES_VERSION = 'v1.35.4';
/** The etcd release k8s.io/kubernetes v1.35.4 pins (tools/etcd/go.mod). */
export const ETCD_VERSION = 'v3.6.5';

/** Where the control-plane binaries were found: the absolute paths a ControlPlane spawns. */
export interface Assets {
  /** The directory holding the binaries. */
  dir: string;
  /** Absolute path of the etcd executable. */
  etcd: string;
  /** Absolute path of the kube-apiserver executable. */
  kubeApiserver: string;
  /** Absent when the assets came from a directory without it (KUBEBUILDER_ASSETS). */
  kubeControllerManager: string | undefined;
  /**
   * Which lookup supplied them: the KUBEBUILDER_ASSETS variable, setup-envtest's store, our
   * cache, or a build this call just ran.
   */
  source: 'KUBEBUILDER_ASSETS' | 'setup-envtest' | 'noderepair-cache' | 'built';
}

const toolsDir = fileURLToPath(new URL('../tools/', import.meta.url));
/** Module mode (the tools modules pin versions, go.sum fills in) and static binaries. */
const GO_ENV = () => ({ ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' });

/** Where built binaries are cached: outside any repository, one folder per version. */
export function cacheDir(version = KUBERNETES_VERSION): string {
  const base =
    process.env.NODEREPAIR_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'noderepair');
  return join(base, 'envtest', version);
}

function fromDir(dir: string): Omit<Assets, 'source'> | undefined {
  const etcd = join(dir, 'etcd');
  const kubeApiserver = join(dir, 'kube-apiserver');
  if (!isExecutable(etcd) || !isExecutable(kubeApiserver)) return undefined;
  const kcm = join(dir, 'kube-controller-manager');
  return { dir, etcd, kubeApiserver, kubeControllerManager: isExecutable(kcm) ? kcm : undefined };
}

function isExecutable(p: string): boolean {
  try {
    const s = statSync(p);
    return s.isFile() && (s.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** setup-envtest's store: ~/.local/share/kubebuilder-envtest/k8s/<version>-linux-amd64. */
function setupEnvtestDirs(): string[] {
  const root = join(
    process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'),
    'kubebuilder-envtest',
    'k8s',
  );
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) =>
      d.endsWith(`-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}`),
    )
    .sort()
    .reverse()
    .map((d) => join(root, d));
}

/**
 * Finds etcd and kube-apiserver without building: KUBEBUILDER_ASSETS first (the
 * controller-runtime convention), then our cache, then setup-envtest's store.
 */
export function findAssets(opts: { needControllerManager?: boolean } = {}): Assets | undefined {
  const candidates: Array<[string, Assets['source']]> = [];
  if (process.env.KUBEBUILDER_ASSETS)
    candidates.push([process.env.KUBEBUILDER_ASSETS, 'KUBEBUILDER_ASSETS']);
  candidates.push([cacheDir(), 'noderepair-cache']);
  for (const d of setupEnvtestDirs()) candidates.push([d, 'setup-envtest']);
  for (const [dir, source] of candidates) {
    const a = fromDir(dir);
    if (a && (!opts.needControllerManager || a.kubeControllerManager)) return { ...a, source };
  }
  return undefined;
}

type Progress = (line: string) => void;

function run(
  cmd: string,
  args: string[],
  cwd: string,
  progress: Progress,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const onData = (b: Buffer) => {
      const s = b.toString();
      tail = (tail + s).slice(-4000);
      for (const line of s.split('\n')) if (line.trim()) progress(`  ${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (err) =>
      reject(
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? new Error(`'${cmd}' was not found on PATH. ${NO_ASSETS_HELP}`)
          : err,
      ),
    );
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}):\n${tail}`)),
    );
  });
}

/** The message shown when no binaries are found: how to provide them, naming the cache directory. */
export const NO_ASSETS_HELP =
  'envtest needs etcd and kube-apiserver. Either set KUBEBUILDER_ASSETS to a directory holding them ' +
  '(e.g. from `setup-envtest use -p path`), or install Go >= 1.25 and run `pnpm envtest:assets`, ' +
  'which builds them from the Kubernetes Go modules into ' +
  cacheDir();

/**
 * Returns the binaries, building them from their Go modules when no cached copy exists.
 * Concurrent callers (parallel test workers) wait on one build through a lock directory.
 */
export async function ensureAssets(
  opts: { needControllerManager?: boolean; progress?: Progress } = {},
): Promise<Assets> {
  const found = findAssets(opts);
  if (found) return found;
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  const dir = cacheDir();
  return underBuildLock(
    dir,
    () => findAssets(opts),
    async () => {
      const tmp = join(dir, `.tmp-${process.pid}`);
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });
      progress(
        `envtest: building etcd ${ETCD_VERSION} from go.etcd.io/etcd/server/v3 (first run only)...`,
      );
      await run(
        'go',
        ['build', '-trimpath', '-ldflags', '-s -w', '-o', join(tmp, 'etcd'), '.'],
        join(toolsDir, 'etcd'),
        progress,
        GO_ENV(),
      );
      progress(
        `envtest: building kube-apiserver and kube-controller-manager ${KUBERNETES_VERSION} from k8s.io/kubernetes (first run only, ~10-20 min on 2 cores)...`,
      );
      await buildKube(tmp, ['kube-apiserver', 'kube-controller-manager'], progress);
      for (const b of ['etcd', 'kube-apiserver', 'kube-controller-manager'])
        renameSync(join(tmp, b), join(dir, b));
      rmSync(tmp, { recursive: true, force: true });
      progress(`envtest: binaries ready in ${dir}`);
      const built = findAssets(opts);
      if (!built) throw new Error(`built binaries are missing from ${dir}`);
      return { ...built, source: 'built' as const };
    },
  );
}

/**
 * Builds k8s.io/kubernetes/cmd/<each of commands> into `outDir`, statically, with the linker
 * flags that stamp KUBERNETES_VERSION into them as the release build does.
 */
function buildKube(outDir: string, commands: string[], progress: Progress): Promise<void> {
  const [, maj, min] = /^v(\d+)\.(\d+)/.exec(KUBERNETES_VERSION) ?? [];
  const ldflags = [
    '-s -w',
    `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
    `-X k8s.io/component-base/version.gitMajor=${maj}`,
    `-X k8s.io/component-base/version.gitMinor=${min}`,
    '-X k8s.io/component-base/version.gitTreeState=clean',
  ].join(' ');
  const args = ['build', '-trimpath', '-ldflags', ldflags, '-o', `${outDir}/`];
  return run(
    'go',
    [...args, ...commands.map((c) => `k8s.io/kubernetes/cmd/${c}`)],
    join(toolsDir, 'kube'),
    progress,
    GO_ENV(),
  );
}

/**
 * Runs `build` while holding `dir`'s build lock (a directory: concurrent callers, such as
 * parallel test workers, wait for one build), unless `found` finds the result first.
 */
async function underBuildLock<T>(
  dir: string,
  found: () => T | undefined,
  build: () => Promise<T>,
): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Someone else is building; a lock older than an hour is from a dead build.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 3_600_000)
          rmSync(lock, { recursive: true, force: true });
      } catch {
        /* raced with its removal */
      }
      await new Promise((r) => setTimeout(r, 2_000));
      const now = found();
      if (now !== undefined) return now;
    }
  }
  try {
    return found() ?? (await build());
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The kubelet of {@link KUBERNETES_VERSION}, for tests that run a real node (a VM joined to the
 * control plane): built once from k8s.io/kubernetes like kube-apiserver, statically (the guest
 * needs no Go or libc of a given version), and cached beside the control-plane binaries.
 * Returns its absolute path.
 */
export async function ensureKubelet(opts: { progress?: Progress } = {}): Promise<string> {
  const progress = opts.progress ?? ((l: string) => process.stderr.write(`${l}\n`));
  const dir = cacheDir();
  const kubelet = join(dir, 'kubelet');
  return underBuildLock(
    dir,
    () => (isExecutable(kubelet) ? kubelet : undefined),
    async () => {
      const tmp = join(dir, `.tmp-kubelet-${process.pid}`);
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { recursive: true });
      progress(
        `envtest: building kubelet ${KUBERNETES_VERSION} from k8s.io/kubernetes (first run only)...`,
      );
      await buildKube(tmp, ['kubelet'], progress);
      renameSync(join(tmp, 'kubelet'), kubelet);
      rmSync(tmp, { recursive: true, force: true });
      progress(`envtest: kubelet ready at ${kubelet}`);
      return kubelet;
    },
  );
}
