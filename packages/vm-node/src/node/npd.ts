// node-problem-detector (issue 46), the Kubernetes project's own node monitor, for the node
// image: built once from its Go module, like the kubelet and crictl, and cached outside the
// repository. Only what the node runs is compiled in: the system log monitor (its kmsg
// watcher reads /dev/kmsg, no cgo, no journald) and the Kubernetes exporter; the Stackdriver
// exporter, the system stats monitor and the custom plugin monitor are left out by NPD's own
// build tags. Its kernel monitor config is copied, unchanged, from the same module.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '@noderepair/envtest';
import { runSync } from './run.js';

/** The k8s.io/node-problem-detector release tools/npd/go.mod pins. */
export const NPD_VERSION = 'v1.34.0';
/** NPD's build tags that leave out what the node does not run (see its Makefile and cmd/). */
export const NPD_BUILD_TAGS = [
  'disable_stackdriver_exporter',
  'disable_system_stats_monitor',
  'disable_custom_plugin_monitor',
];

/** The built binary and the module's kernel monitor config, both cached per version. */
export interface NodeProblemDetector {
  readonly binary: string;
  /** NPD's config/kernel-monitor.json at {@link NPD_VERSION}, as the module ships it. */
  readonly kernelMonitorConfig: string;
}

/**
 * The tools module: requires k8s.io/node-problem-detector at NPD_VERSION (its go.sum pins the
 * rest). `go install <pkg>@<version>` is not used: it asks the proxy for the module's version
 * list (for deprecations), which a proxy that serves only pinned versions refuses.
 */
const toolsDir = fileURLToPath(new URL('../../tools/npd/', import.meta.url));
const GO_ENV = { GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };

/** Returns the cached node-problem-detector, building it first when absent. */
export function ensureNodeProblemDetector(
  progress: (line: string) => void = () => {},
): NodeProblemDetector {
  // The same cache root as envtest's binaries (NODEREPAIR_CACHE, XDG_CACHE_HOME): <root>/node/.
  const base = dirname(dirname(cacheDir()));
  const dir = join(base, 'node', `node-problem-detector-${NPD_VERSION}`);
  const binary = join(dir, 'node-problem-detector');
  const kernelMonitorConfig = join(dir, 'kernel-monitor.json');
  if (existsSync(binary) && existsSync(kernelMonitorConfig)) return { binary, kernelMonitorConfig };
  const tmp = join(dir, `.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  progress(
    `vm-node: building node-problem-detector ${NPD_VERSION} from k8s.io/node-problem-detector (first run only)...`,
  );
  const started = Date.now();
  runSync(
    'go',
    [
      'build',
      '-trimpath',
      '-tags',
      NPD_BUILD_TAGS.join(' '),
      '-ldflags',
      `-s -w -X k8s.io/node-problem-detector/pkg/version.version=${NPD_VERSION}`,
      '-o',
      join(tmp, 'node-problem-detector'),
      'k8s.io/node-problem-detector/cmd/nodeproblemdetector',
    ],
    { cwd: toolsDir, env: GO_ENV, timeoutMs: 30 * 60_000 },
  );
  // The module's directory in the module cache (the build just downloaded it).
  const list = spawnSync('go', ['list', '-m', '-f', '{{.Dir}}', 'k8s.io/node-problem-detector'], {
    cwd: toolsDir,
    env: { ...process.env, ...GO_ENV },
    encoding: 'utf8',
  });
  const moduleDir = list.stdout.trim();
  if (list.status !== 0 || moduleDir === '')
    throw new Error(`go list -m k8s.io/node-problem-detector failed: ${list.stderr}`);
  copyFileSync(join(moduleDir, 'config', 'kernel-monitor.json'), join(tmp, 'kernel-monitor.json'));
  renameSync(join(tmp, 'kernel-monitor.json'), kernelMonitorConfig);
  renameSync(join(tmp, 'node-problem-detector'), binary);
  rmSync(tmp, { recursive: true, force: true });
  progress(
    `vm-node: node-problem-detector ready at ${binary} (built in ${Math.round((Date.now() - started) / 1000)}s)`,
  );
  return { binary, kernelMonitorConfig };
}
