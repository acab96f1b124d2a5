// Realistic Node objects: what a kubelet posts on a busy worker (labels, ~20 images with
// digests, five conditions, addresses, capacity, nodeInfo).
import type { KubeNode } from '../src/kube/index.js';

const hex = (seed: number, len: number) => {
  let s = '';
  let x = (seed * 2654435761) >>> 0;
  while (s.length < len) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(16).padStart(8, '0');
  }
  return s.slice(0, len);
};

export function realisticNode(i: number, suffix: string): KubeNode {
  const name = `bench-${suffix}-${String(i).padStart(5, '0')}`;
  const t = '2026-01-01T00:00:00Z';
  const images = Array.from({ length: 20 }, (_, j) => ({
    names: [
      `registry.example.com/team-${j % 7}/service-${j}@sha256:${hex(i * 31 + j, 64)}`,
      `registry.example.com/team-${j % 7}/service-${j}:v1.${j}.${i % 10}`,
    ],
    sizeBytes: 10_000_000 + j * 1_234_567,
  }));
  const cond = (type: string, status: 'True' | 'False', reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: t,
    lastTransitionTime: t,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/instance-type': 'm1.large',
        'topology.kubernetes.io/region': 'regionOne',
        'topology.kubernetes.io/zone': `nova-${i % 3}`,
        'node-role.kubernetes.io/worker': '',
        'cluster.x-k8s.io/cluster-name': 'prod',
        'noderepair.dev/bench': suffix,
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        'cluster.x-k8s.io/machine': `prod-md-0-${hex(i, 5)}-${hex(i + 1, 5)}`,
        'cluster.x-k8s.io/owner-kind': 'MachineSet',
      },
    },
    spec: {
      providerID: `openstack:///${hex(i, 8)}-${hex(i + 7, 4)}-${hex(i + 9, 4)}-${hex(i + 11, 4)}-${hex(i + 13, 12)}`,
      podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24`,
    },
    status: {
      capacity: {
        cpu: '8',
        memory: '32863012Ki',
        pods: '110',
        'ephemeral-storage': '101430960Ki',
        'hugepages-2Mi': '0',
      },
      allocatable: {
        cpu: '7800m',
        memory: '31711012Ki',
        pods: '110',
        'ephemeral-storage': '93478772582',
        'hugepages-2Mi': '0',
      },
      conditions: [
        cond(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond(
          'PIDPressure',
          'False',
          'KubeletHasSufficientPID',
          'kubelet has sufficient PID available',
        ),
        cond('NetworkUnavailable', 'False', 'CalicoIsUp', 'Calico is running on this node'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: hex(i, 32),
        systemUUID: hex(i + 3, 32),
        bootID: hex(i + 5, 32),
        kernelVersion: '6.8.0-45-generic',
        osImage: 'Ubuntu 24.04.1 LTS',
        containerRuntimeVersion: 'containerd://1.7.22',
        kubeletVersion: 'v1.35.4',
        kubeProxyVersion: 'v1.35.4',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images,
    },
  };
}

/** What a repair controller needs of a Node; everything else is dropped at the informer. */
export interface NodeProjection {
  metadata: { name: string; resourceVersion?: string; uid?: string };
  providerID?: string;
  unschedulable?: boolean;
  ready?: { status: string; reason?: string; since?: string };
}

export function projectNode(n: KubeNode): NodeProjection {
  const r = n.status?.conditions?.find((c) => c.type === 'Ready');
  return {
    metadata: {
      name: n.metadata!.name!,
      resourceVersion: n.metadata!.resourceVersion!,
      uid: n.metadata!.uid!,
    },
    providerID: n.spec?.providerID,
    unschedulable: n.spec?.unschedulable,
    ready: r ? { status: r.status, reason: r.reason, since: r.lastTransitionTime } : undefined,
  };
}
