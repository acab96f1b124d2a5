// The real helm and kubectl (kustomize is built into kubectl), built once from their Go
// modules (tools/helm, tools/kubectl pin them through go.sum) and cached like the envtest
// binaries: ~/.cache/noderepair/<tool>/<version>/<tool>. A fresh CI machine rebuilds them
// from the Go module proxy (scripts/bootstrap.mjs starts it with the other Go builds).
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, exec, stderrProgress, type Progress } from './exec.js';

/** helm.sh/helm/v4 (tools/helm/go.mod). */
export const HELM_VERSION = 'v4.3.2';
/** k8s.io/kubectl at the envtest control plane's release (tools/kubectl/go.mod). */
export const KUBECTL_VERSION = 'v1.35.4';

const toolsDir = fileURLToPath(new URL('../tools/', import.meta.url));

interface Tool {
  name: 'helm' | 'kubectl';
  version: string;
  /** The package to build, inside tools/<name>. */
  pkg: string;
  ldflags: string;
}

const TOOLS: Record<Tool['name'], Tool> = {
  helm: {
    name: 'helm',
    version: HELM_VERSION,
    pkg: 'helm.sh/helm/v4/cmd/helm',
    ldflags: `-s -w -X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}`,
  },
  kubectl: {
    name: 'kubectl',
    version: KUBECTL_VERSION,
    pkg: '.',
    ldflags: [
      '-s -w',
      `-X k8s.io/component-base/version.gitVersion=${KUBECTL_VERSION}`,
      `-X k8s.io/component-base/version.gitMajor=1`,
      `-X k8s.io/component-base/version.gitMinor=${KUBECTL_VERSION.split('.')[1]}`,
      '-X k8s.io/component-base/version.gitTreeState=clean',
    ].join(' '),
  },
};

export function toolPath(name: Tool['name']): string {
  const t = TOOLS[name];
  return join(cacheRoot(), name, t.version, name);
}

function isExecutable(p: string): boolean {
  try {
    return statSync(p).isFile() && (statSync(p).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** Builds the tool into the cache unless it is there; parallel callers wait on one build. */
export async function ensureTool(
  name: Tool['name'],
  progress: Progress = stderrProgress,
): Promise<string> {
  const t = TOOLS[name];
  const bin = toolPath(name);
  if (isExecutable(bin)) return bin;
  const dir = join(bin, '..');
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, '.build-lock');
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > 3_600_000)
          rmSync(lock, { recursive: true, force: true });
      } catch {
        /* raced with its removal */
      }
      await new Promise((r) => setTimeout(r, 2_000));
      if (isExecutable(bin)) return bin;
    }
  }
  try {
    if (isExecutable(bin)) return bin;
    const tmp = join(dir, `.${name}.${process.pid}.tmp`);
    progress(
      `ship: building ${name} ${t.version} from its Go module (first run only, a few minutes)...`,
    );
    const started = Date.now();
    await exec('go', ['build', '-trimpath', '-ldflags', t.ldflags, '-o', tmp, t.pkg], {
      cwd: join(toolsDir, name),
      env: { ...process.env, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
      progress,
    });
    renameSync(tmp, bin);
    progress(`ship: ${name} ready at ${bin} (${Math.round((Date.now() - started) / 1000)} s)`);
    return bin;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export async function ensureTools(
  progress: Progress = stderrProgress,
): Promise<{ helm: string; kubectl: string }> {
  // One after the other: each Go build already uses both cores.
  const kubectl = await ensureTool('kubectl', progress);
  const helm = await ensureTool('helm', progress);
  return { helm, kubectl };
}

export const toolsAvailable = () => existsSync(toolPath('helm')) && existsSync(toolPath('kubectl'));
