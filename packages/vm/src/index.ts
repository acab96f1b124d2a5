// The qemu VM machinery the VM tests share (overlayfs-gen's boot test, the Kubernetes node of
// issue 26): a cached Debian image with a test agent, and a VM that boots it under TCG.
export { applyCloudConfig } from './cloud-config.js';
export { AGENT_PORT, GUEST_FILES, GUEST_LINKS, type GuestFile } from './guest-files.js';
export { ensureImage, type ImageOptions, type VmImage } from './image.js';
export { debianSource, type DebianSource } from './mirror.js';
export { Vm, type ExecResult, type VmOptions } from './qemu.js';
export { parseSpanMs, parseStartup } from './systemd-time.js';
