import type { ContainerRuntime, HealthMonitor } from './types.js';

/** The seed's volatile set: system directories a bad manual change or package install can break. */
export const DEFAULT_VOLATILE: readonly string[] = ['/etc', '/home', '/opt', '/root', '/srv', '/usr'];

/**
 * Kept across reboots. Each is here for a reason:
 * /var/log is the evidence of what went wrong; /var/lib/containerd holds images and emptyDir
 * data; /etc/kubernetes and /var/lib/kubelet are kubeadm's output (losing kubelet's
 * config.yaml, kubeadm-flags.env or pki breaks the node); CNI plugins install after the
 * overlay exists and would race with it; the machine-id and ssh host keys are the node's identity.
 * Paths outside every volatile directory are already persistent; they stay listed so that
 * making /var volatile keeps them safe.
 */
export const DEFAULT_PERSISTENT: readonly string[] = [
  '/var/log',
  '/var/lib/containerd',
  '/var/lib/kubelet',
  '/etc/kubernetes',
  '/opt/cni/bin',
  '/etc/cni/net.d',
  '/usr/libexec/kubernetes',
  '/etc/machine-id',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ecdsa_key.pub',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssh/ssh_host_ed25519_key.pub',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_rsa_key.pub',
];

/** Default tmpfs size= of the upper layers. */
export const DEFAULT_TMPFS_SIZE = '1G';
/** Default OverlayConfig.stateDir: the tmpfs mount point and the boot script's progress markers. */
export const DEFAULT_STATE_DIR = '/run/noderepair-overlay';

/** containerd's unit and socket, used when the config names no container runtime. */
export const DEFAULT_CONTAINER_RUNTIME: ContainerRuntime = {
  unit: 'containerd.service',
  endpoint: 'unix:///run/containerd/containerd.sock',
};

/** Settings shared by every monitor unless it overrides them. Improves on GCE's health-monitor.sh. */
export const DEFAULT_MONITOR_SETTINGS: Omit<HealthMonitor, 'name' | 'unit' | 'check'> = {
  intervalSeconds: 10,
  timeoutSeconds: 10,
  failureThreshold: 3,
  bootGraceSeconds: 120,
  killGraceSeconds: 10,
  restartBudget: { maxRestarts: 3, windowSeconds: 3600 },
  backoff: { initialSeconds: 60, maxSeconds: 600 },
  restartSec: 5,
};

/** The kubelet's local healthz URL, checked by the default `kubelet` monitor. */
export const DEFAULT_KUBELET_HEALTHZ = 'http://127.0.0.1:10248/healthz';

/** A built-in monitor: what it watches and any setting that differs from the shared defaults. */
export type DefaultMonitor = Pick<HealthMonitor, 'name' | 'unit' | 'check'> & Partial<Pick<HealthMonitor, 'timeoutSeconds'>>;

/** The two monitors used when the config lists none. */
export function defaultHealthMonitors(runtime: ContainerRuntime): DefaultMonitor[] {
  return [
    { name: 'kubelet', unit: 'kubelet.service', check: { type: 'http', url: DEFAULT_KUBELET_HEALTHZ } },
    // crictl can legitimately take long on a busy node; GCE allows 60 s.
    { name: 'container-runtime', unit: runtime.unit, check: { type: 'crictl', endpoint: runtime.endpoint }, timeoutSeconds: 60 },
  ];
}
