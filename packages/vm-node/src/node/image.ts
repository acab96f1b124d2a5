// The node image: the VM test's Debian image (../vm) plus containerd, runc and the CNI plugins
// from Debian, the kubelet built at the control plane's version, crictl, node-problem-detector
// with its kernel monitor config (npd.ts), the locally built pause image and the node's config
// (node-files.ts). What a node's cloud-init would add at first boot
// (overlayfs-gen's output) is applied in the booted VM (@noderepair/vm's applyCloudConfig), as
// cloud-init does it: a chroot cannot run its `systemctl enable --now`. Cached under
// ~/.cache/noderepair/vm/<suite>/node/, rebuilt when any of those inputs changes.
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureKubelet, KUBERNETES_VERSION } from '@noderepair/envtest';
import { ensureImage, type GuestFile, type VmImage } from '@noderepair/vm';
import { CRICTL_VERSION, ensureCrictl } from './crictl.js';
import { NODE_FILES, NPD_KERNEL_MONITOR_CONFIG, NPD_UNIT, PAUSE_ARCHIVE } from './node-files.js';
import { ensureNodeProblemDetector, NPD_BUILD_TAGS, NPD_VERSION } from './npd.js';
import { buildPauseImage } from './pause-image.js';
import { runSync } from './run.js';

/** Debian packages of the node: the runtime, its OCI runtime, the pod network's plugins, and
 * curl for the generated kubelet monitor's healthz check. */
export const NODE_PACKAGES = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'iptables',
  'curl',
];

export interface NodeImageOptions {
  /** Build progress (the first build takes minutes). */
  readonly progress?: (line: string) => void;
}

function chroot(rootfs: string, script: string): void {
  runSync('chroot', [rootfs, 'sh', '-ec', script], {
    env: { DEBIAN_FRONTEND: 'noninteractive' },
    timeoutMs: 15 * 60_000,
  });
}

/** Builds (first time, or when an input changed) and returns the node image. */
export async function ensureNodeImage(opts: NodeImageOptions = {}): Promise<VmImage> {
  const progress = opts.progress ?? (() => {});
  const kubelet = await ensureKubelet({ progress });
  const crictl = ensureCrictl(progress);
  const npd = ensureNodeProblemDetector(progress);
  const pause = buildPauseImage(join(tmpdir(), `noderepair-pause-${process.pid}`));
  const files: Record<string, GuestFile> = {
    ...NODE_FILES,
    // The versions of what customize() copies in from outside: a new one rebuilds the image.
    '/etc/noderepair-node-image': {
      mode: 0o644,
      content: `kubelet ${KUBERNETES_VERSION}\ncrictl ${CRICTL_VERSION}\nnode-problem-detector ${NPD_VERSION} ${NPD_BUILD_TAGS.join(',')}\npackages ${NODE_PACKAGES.join(' ')}\n`,
    },
  };
  return ensureImage({
    name: 'node',
    files,
    diskSize: '3G',
    customize: (rootfs) => {
      progress('vm-node: installing the node packages in the image');
      // --force-confold: our containerd config.toml (written above) is kept, not the package's.
      chroot(
        rootfs,
        `apt-get update -qq && apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confold ${NODE_PACKAGES.join(' ')}`,
      );
      copyFileSync(kubelet, join(rootfs, 'usr/local/bin/kubelet'));
      copyFileSync(crictl, join(rootfs, 'usr/local/bin/crictl'));
      chmodSync(join(rootfs, 'usr/local/bin/kubelet'), 0o755);
      chmodSync(join(rootfs, 'usr/local/bin/crictl'), 0o755);
      copyFileSync(npd.binary, join(rootfs, 'usr/local/bin/node-problem-detector'));
      chmodSync(join(rootfs, 'usr/local/bin/node-problem-detector'), 0o755);
      mkdirSync(dirname(join(rootfs, NPD_KERNEL_MONITOR_CONFIG)), { recursive: true });
      copyFileSync(npd.kernelMonitorConfig, join(rootfs, NPD_KERNEL_MONITOR_CONFIG));
      mkdirSync(dirname(join(rootfs, PAUSE_ARCHIVE)), { recursive: true });
      copyFileSync(pause, join(rootfs, PAUSE_ARCHIVE));
      chroot(
        rootfs,
        `systemctl enable systemd-networkd kubelet.service ${NPD_UNIT} noderepair-pause-import.service`,
      );
    },
  });
}
