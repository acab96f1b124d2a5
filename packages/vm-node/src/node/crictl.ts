// crictl, which the generated container-runtime health monitor checks containerd with (its
// default check). Debian bookworm does not package it, so it is built once from its Go module,
// like the Kubernetes binaries, and cached outside the repository.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** cri-tools release: CRI v1, which containerd 1.6 serves and kubelet v1.35 speaks. */
export const CRICTL_VERSION = 'v1.34.0';

/** Returns the cached crictl, building it first when absent. */
export function ensureCrictl(progress: (line: string) => void = () => {}): string {
  const base =
    process.env.NODEREPAIR_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'noderepair');
  const dir = join(base, 'node', `crictl-${CRICTL_VERSION}`);
  const crictl = join(dir, 'crictl');
  if (existsSync(crictl)) return crictl;
  mkdirSync(dir, { recursive: true });
  progress(
    `vm-node: building crictl ${CRICTL_VERSION} from sigs.k8s.io/cri-tools (first run only)...`,
  );
  const r = spawnSync(
    'go',
    [
      'install',
      '-trimpath',
      '-ldflags',
      '-s -w',
      `sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}`,
    ],
    {
      encoding: 'utf8',
      env: { ...process.env, GOBIN: dir, CGO_ENABLED: '0' },
      timeout: 20 * 60_000,
    },
  );
  if (r.error || r.status !== 0)
    throw new Error(
      `building crictl failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stderr ?? '').slice(-3000)}`,
    );
  return crictl;
}
