// A real Kubernetes node in a qemu VM: the node image booted with a user-mode network, its
// kubelet joined to a control plane on this host. The host talks to the guest through the VM's
// test agent (../vm); the kubelet talks to the API server over the guest's network.
import { Vm, type VmImage } from '@noderepair/vm';
import { NPD_UNIT } from './node-files.js';

/**
 * The host as the guest sees it: qemu's user network forwards 10.0.2.2 to the host's loopback,
 * where the test control plane listens.
 */
export const HOST_FROM_GUEST = '10.0.2.2';
/** A name the API server's self-signed serving certificate holds (it has no IP SAN for 10.0.2.2). */
const APISERVER_TLS_NAME = 'kubernetes';

/** Boot time under TCG on a shared 2-core machine is tens of seconds; allow for a loaded host. */
const BOOT_TIMEOUT_MS = 10 * 60_000;

export interface KubeNodeOptions {
  /** The Node's name; the control plane must hold a kubelet identity for it. */
  readonly name: string;
  readonly image: VmImage;
  /** Guest memory; the kubelet, containerd and a pod fit in 2 GiB. */
  readonly memoryMiB?: number;
  /** Extra qemu arguments (a QMP socket for the test hypervisor, say). */
  readonly qemuArgs?: readonly string[];
}

/** What join() needs of the control plane: its URL, CA and this node's kubelet token. */
export interface JoinTarget {
  /** `https://127.0.0.1:<port>` on this host. */
  readonly server: string;
  readonly caPem: string;
  /** The bearer token of `system:node:<name>`. */
  readonly token: string;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class KubeNode {
  readonly vm: Vm;
  /** The providerID the kubelet registers with (the test hypervisor's machine name). */
  readonly providerID: string;

  constructor(private readonly opts: KubeNodeOptions) {
    this.providerID = `qemu-test:///${opts.name}`;
    this.vm = new Vm(opts.image, {
      memoryMiB: opts.memoryMiB ?? 2048,
      qemuArgs: ['-nic', 'user,model=virtio-net-pci', ...(opts.qemuArgs ?? [])],
    });
  }

  get name(): string {
    return this.opts.name;
  }

  /** Starts qemu and waits for the agent; returns the boot id. */
  async boot(): Promise<string> {
    await this.vm.start();
    return this.vm.waitForBoot(undefined, BOOT_TIMEOUT_MS);
  }

  /**
   * Writes the kubelet's kubeconfig and identity (kept across reboots: /etc/kubernetes is a
   * persistent path) and starts the kubelet and node-problem-detector. The kubelet registers
   * the Node itself.
   */
  async join(target: JoinTarget): Promise<void> {
    const port = new URL(target.server).port;
    const kubeconfig = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: test',
      '  cluster:',
      `    server: https://${HOST_FROM_GUEST}:${port}`,
      `    tls-server-name: ${APISERVER_TLS_NAME}`,
      `    certificate-authority-data: ${Buffer.from(target.caPem).toString('base64')}`,
      'users:',
      `- name: ${this.name}`,
      '  user:',
      `    token: ${target.token}`,
      'contexts:',
      '- name: test',
      `  context: { cluster: test, user: ${this.name} }`,
      'current-context: test',
      '',
    ].join('\n');
    const env = `NODE_NAME=${this.name}\nPROVIDER_ID=${this.providerID}\n`;
    const b64 = (s: string) => q(Buffer.from(s).toString('base64'));
    // The token goes through the agent's channel only. Not vm.ok(): its error quotes the
    // command, and this one holds the token.
    const r = await this.vm.exec(
      [
        'mkdir -p /etc/kubernetes',
        `printf %s ${b64(kubeconfig)} | base64 -d > /etc/kubernetes/kubelet.conf`,
        'chmod 600 /etc/kubernetes/kubelet.conf',
        `printf %s ${b64(env)} | base64 -d > /etc/kubernetes/kubelet.env`,
        // node-problem-detector reports with the same identity (node-files.ts).
        `systemctl start kubelet.service ${NPD_UNIT}`,
      ].join(' && '),
    );
    if (r.rc !== 0)
      throw new Error(
        `joining ${this.name}: writing the kubelet's identity or starting it failed (rc ${r.rc}): ${r.out}`,
      );
  }

  async stop(): Promise<void> {
    await this.vm.stop();
  }
}

/** A JoinTarget from an envtest ControlPlane-like object (kept structural: no import cycle). */
export function joinTargetOf(
  cp: { server: string; caPem: string; nodeToken(name: string): string },
  name: string,
): JoinTarget {
  return { server: cp.server, caPem: cp.caPem, token: cp.nodeToken(name) };
}
