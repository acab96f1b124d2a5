// What makes the VM a Kubernetes node, beside the packages (image.ts): containerd's config, the
// pod network, the kubelet's config and unit, node-problem-detector's unit, and the import of
// the locally built pause image. The kubelet's identity is not here: join() writes it per
// control plane (node.ts).
import type { GuestFile } from '@noderepair/vm';
import { PAUSE_IMAGE } from './pause-image.js';

/** Where the image keeps the pause archive until the first boot imports it. */
export const PAUSE_ARCHIVE = '/usr/local/share/noderepair/pause-image.tar';
/** Where the image keeps node-problem-detector's kernel monitor config (NPD's own, npd.ts). */
export const NPD_KERNEL_MONITOR_CONFIG = '/etc/node-problem-detector/kernel-monitor.json';
/** node-problem-detector's unit: started by join() with the kubelet, by itself after a reboot. */
export const NPD_UNIT = 'node-problem-detector.service';

/** Pods' network: a bridge on the node (one node, so no routes between nodes are needed). */
export const POD_SUBNET = '10.88.0.0/16';

const file = (content: string, mode = 0o644): GuestFile => ({ mode, content });

export const NODE_FILES: Record<string, GuestFile> = {
  // Only what differs from containerd 1.6's defaults. The kubelet uses the systemd cgroup
  // driver (below), so runc must too; Debian installs the CNI plugins in /usr/lib/cni.
  '/etc/containerd/config.toml': file(`version = 2
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${PAUSE_IMAGE}"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
`),
  // Without a CNI config the kubelet reports NetworkReady=false and the node stays NotReady.
  '/etc/cni/net.d/10-noderepair.conflist': file(
    `${JSON.stringify(
      {
        cniVersion: '1.0.0',
        name: 'noderepair',
        plugins: [
          {
            type: 'bridge',
            bridge: 'cni0',
            isGateway: true,
            ipMasq: false,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: POD_SUBNET }]],
              routes: [{ dst: '0.0.0.0/0' }],
            },
          },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      },
      null,
      2,
    )}\n`,
  ),
  // The qemu user network's DHCP gives the node 10.0.2.15 and a route to the host (10.0.2.2).
  '/etc/systemd/network/20-wired.network': file('[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n'),
  // kubeadm's defaults where they matter here, plus: no webhook authn/authz (the test control
  // plane does not serve the kubelet's API back), and a graceful-shutdown period so that a
  // `systemctl poweroff` shows the kubelet's own "node is shutting down" condition.
  '/var/lib/kubelet/config.yaml': file(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: systemd
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
staticPodPath: /etc/kubernetes/manifests
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: false }
authorization:
  mode: AlwaysAllow
shutdownGracePeriod: 30s
shutdownGracePeriodCriticalPods: 10s
# A 3 GiB test disk and 2 GiB of memory: the default thresholds would evict the test's pod.
evictionHard:
  memory.available: 50Mi
  nodefs.available: 1%
  imagefs.available: 1%
`),
  // Starts once join() has written the identity; after a reboot it starts by itself
  // (/etc/kubernetes is kept across reboots by the overlay's persistent paths).
  '/etc/systemd/system/kubelet.service': file(`[Unit]
Description=kubelet
Wants=containerd.service
After=containerd.service network-online.target noderepair-pause-import.service
ConditionPathExists=/etc/kubernetes/kubelet.env

[Service]
EnvironmentFile=/etc/kubernetes/kubelet.env
ExecStart=/usr/local/bin/kubelet --config=/var/lib/kubelet/config.yaml --kubeconfig=/etc/kubernetes/kubelet.conf --hostname-override=\${NODE_NAME} --provider-id=\${PROVIDER_ID} --v=1
Restart=always
RestartSec=2

[Install]
WantedBy=multi-user.target
`),
  // node-problem-detector with its kernel monitor only (kmsg: /dev/kmsg), reporting to the API
  // server as the kubelet's identity (system:node:<name>): the Node authorizer and
  // NodeRestriction let exactly that identity patch its own Node's status and create Events,
  // which is all NPD's Kubernetes exporter does; no other credential is on the node. With
  // inClusterConfig=false and auth=<kubeconfig>, NPD takes the server, its CA and TLS name
  // from that kubeconfig (NPD reads the URI's host only without auth, so none is given: the
  // kubelet's kubeconfig is written per control plane by join()). Its HTTP server (/healthz,
  // /conditions) and Prometheus endpoint stay on 127.0.0.1, NPD's defaults.
  '/etc/systemd/system/node-problem-detector.service': file(`[Unit]
Description=node-problem-detector (kernel monitor)
After=kubelet.service
ConditionPathExists=/etc/kubernetes/kubelet.env

[Service]
EnvironmentFile=/etc/kubernetes/kubelet.env
ExecStart=/usr/local/bin/node-problem-detector --hostname-override=\${NODE_NAME} --config.system-log-monitor=${NPD_KERNEL_MONITOR_CONFIG} --apiserver-override=?inClusterConfig=false&auth=/etc/kubernetes/kubelet.conf
Restart=always
RestartSec=5

[Install]
WantedBy=multi-user.target
`),
  '/etc/systemd/system/noderepair-pause-import.service': file(`[Unit]
Description=Import the locally built pause image into containerd
Requires=containerd.service
After=containerd.service
ConditionPathExists=!/var/lib/noderepair/pause-imported

[Service]
Type=oneshot
ExecStart=/usr/bin/ctr --namespace k8s.io images import ${PAUSE_ARCHIVE}
ExecStart=/usr/bin/mkdir -p /var/lib/noderepair
ExecStart=/usr/bin/touch /var/lib/noderepair/pause-imported

[Install]
WantedBy=multi-user.target
`),
};
