// crictl, which the generated container-runtime health monitor checks containerd with (its
// default check). Debian bookworm does not package it, so it is built once from its Go module,
// like the Kubernetes binaries, and cached outside the repository.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheDir } from '@noderepair/envtest';
import { runSync } from './run.js';

/** cri-tools release: CRI v1, which containerd 1.6 serves and kubelet v1.35 speaks. */
export const CRICTL_VERSION = 'v1.34.0';

/** Returns the cached crictl, building it first when absent. */
export function ensureCrictl(progress: (line: string) => void = () => {}): string {
  // The same cache root as envtest's binaries (NODEREPAIR_CACHE, XDG_CACHE_HOME): <root>/node/.
  const base = dirname(dirname(cacheDir()));
  const dir = join(base, 'node', `crictl-${CRICTL_VERSION}`);
  const crictl = join(dir, 'crictl');
  if (existsSync(crictl)) return crictl;
  mkdirSync(dir, { recursive: true });
  progress(
    `vm-node: building crictl ${CRICTL_VERSION} from sigs.k8s.io/cri-tools (first run only)...`,
  );
  runSync(
    'go',
    [
      'install',
      '-trimpath',
      '-ldflags',
      '-s -w',
      `sigs.k8s.io/cri-tools/cmd/crictl@${CRICTL_VERSION}`,
    ],
    { env: { GOBIN: dir, CGO_ENABLED: '0' }, timeoutMs: 20 * 60_000 },
  );
  return crictl;
}
