// A real Kubernetes node in a qemu VM (issue 26): the node image (Debian's containerd, the
// kubelet at the control plane's version, a locally built pause image) and the node itself,
// booted and joined to a test control plane.
export { ensureCrictl, CRICTL_VERSION } from './crictl.js';
export { ensureNodeImage, NODE_PACKAGES, type NodeImageOptions } from './image.js';
export {
  NODE_FILES,
  NPD_KERNEL_MONITOR_CONFIG,
  NPD_UNIT,
  PAUSE_ARCHIVE,
  POD_SUBNET,
} from './node-files.js';
export {
  ensureNodeProblemDetector,
  NPD_BUILD_TAGS,
  NPD_VERSION,
  type NodeProblemDetector,
} from './npd.js';
export {
  HOST_FROM_GUEST,
  joinTargetOf,
  KubeNode,
  type JoinTarget,
  type KubeNodeOptions,
} from './node.js';
export { buildPauseImage, PAUSE_IMAGE } from './pause-image.js';
