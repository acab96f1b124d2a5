import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Cluster API release tools/capi/go.mod pins (supports v1.35 management clusters). */
export const CAPI_VERSION = 'v1.13.6';
/** The Cluster API Provider OpenStack release tools/capo/go.mod pins (CRDs only). */
export const CAPO_VERSION = 'v0.13.0';

const CAPI_MODULE = 'sigs.k8s.io/cluster-api';
const CAPO_MODULE = 'sigs.k8s.io/cluster-api-provider-openstack';

const toolsDir = fileURLToPath(new URL('../tools/', import.meta.url));

export type Progress = (line: string) => void;

const defaultProgress: Progress = (l) => process.stderr.write(`${l}\n`);

/** Where the built manager is cached: outside any repository, one folder per version. */
export function capiCacheDir(version = CAPI_VERSION): string {
  const base =
    process.env.NODEREPAIR_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'noderepair');
  return join(base, 'capi', version);
}

export interface CapiAssets {
  /** The Cluster API core manager binary (cluster-api-controller). */
  manager: string;
  /** config/crd/bases of sigs.k8s.io/cluster-api in the Go module cache. */
  capiCrdDir: string;
  /** config/webhook/manifests.yaml of the same module. */
  capiWebhookManifests: string;
  /** config/crd/bases of sigs.k8s.io/cluster-api-provider-openstack. */
  capoCrdDir: string;
}

function isExecutable(p: string): boolean {
  try {
    const s = statSync(p);
    return s.isFile() && (s.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

export const NO_GO_HELP =
  'the Cluster API e2e harness builds the Cluster API manager from its Go module and reads CRDs from ' +
  'the Go module cache: install Go >= 1.25 and make sure the Go module proxy is reachable';

function run(cmd: string, args: string[], cwd: string, progress: Progress, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let tail = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      const s = b.toString();
      tail = (tail + s).slice(-4000);
      for (const line of s.split('\n')) if (line.trim()) progress(`  ${line}`);
    });
    child.on('error', (err) =>
      reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(`'${cmd}' was not found on PATH: ${NO_GO_HELP}`) : err),
    );
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (exit ${code}):\n${tail}`)),
    );
  });
}

/** The module's directory in the Go module cache, downloading it (verified by go.sum) if needed. */
async function moduleDir(tool: 'capi' | 'capo', module: string, progress: Progress): Promise<string> {
  const out = await run('go', ['mod', 'download', '-json', module], join(toolsDir, tool), progress, {
    ...process.env,
    GOFLAGS: '-mod=mod',
  });
  const parsed: unknown = JSON.parse(out);
  const dir = typeof parsed === 'object' && parsed !== null ? (parsed as { Dir?: unknown }).Dir : undefined;
  if (typeof dir !== 'string' || !existsSync(dir)) {
    throw new Error(`go mod download -json ${module} returned no existing Dir (got ${JSON.stringify(dir)})`);
  }
  return dir;
}

/**
 * Builds the manager into the cache if it is not there. Parallel callers wait on one build
 * through a lock directory; a lock older than an hour is from a dead build.
 */
async function ensureManager(progress: Progress): Promise<string> {
  const dir = capiCacheDir();
  const bin = join(dir, 'cluster-api-controller');
  if (isExecutable(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 3_600_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        /* raced with its removal */
      }
      await new Promise((r) => setTimeout(r, 2_000));
      if (isExecutable(bin)) return bin;
    }
  }
  try {
    if (isExecutable(bin)) return bin;
    const tmp = join(dir, `.cluster-api-controller.${process.pid}.tmp`);
    progress(
      `capi-e2e: building the Cluster API manager ${CAPI_VERSION} from ${CAPI_MODULE} (first run only, ~10-20 min on 2 cores)...`,
    );
    const ldflags = `-s -w -X sigs.k8s.io/cluster-api/version.gitVersion=${CAPI_VERSION}`;
    await run('go', ['build', '-trimpath', '-ldflags', ldflags, '-o', tmp, CAPI_MODULE], join(toolsDir, 'capi'), progress, {
      ...process.env,
      GOFLAGS: '-mod=mod',
      CGO_ENABLED: '0',
    });
    renameSync(tmp, bin);
    progress(`capi-e2e: manager ready at ${bin}`);
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The manager binary and the CRD/webhook manifests of the pinned modules, building once. */
export async function ensureCapiAssets(opts: { progress?: Progress } = {}): Promise<CapiAssets> {
  const progress = opts.progress ?? defaultProgress;
  const capiDir = await moduleDir('capi', CAPI_MODULE, progress);
  const capoDir = await moduleDir('capo', CAPO_MODULE, progress);
  const manager = await ensureManager(progress);
  const assets: CapiAssets = {
    manager,
    capiCrdDir: join(capiDir, 'config', 'crd', 'bases'),
    capiWebhookManifests: join(capiDir, 'config', 'webhook', 'manifests.yaml'),
    capoCrdDir: join(capoDir, 'config', 'crd', 'bases'),
  };
  for (const [what, p] of Object.entries(assets)) {
    if (!existsSync(p)) throw new Error(`capi-e2e: ${what} is missing: expected ${p}`);
  }
  return assets;
}
