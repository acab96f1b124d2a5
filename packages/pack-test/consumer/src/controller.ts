// A small node-repair controller written the way a user of the published packages would:
// only the public exports of @noderepair/core and @noderepair/openstack.
//
// It classifies every Node with core's health rules and records the cause in an annotation.
// When the kubelet is unreachable it hard-reboots the Node's OpenStack server once per boot
// (the Node's bootID changes when the machine comes back, which ends the episode).
import { classifyNode } from '@noderepair/core/health';
import { NodeResource, type KubeClient, type KubeNode } from '@noderepair/core/kube';
import { Manager, ServerSideApplier } from '@noderepair/core/runtime';
import { parseProviderID, type OpenStackClient } from '@noderepair/openstack';

export const CauseAnnotation = 'packtest.noderepair.dev/cause';
/** The bootID of the boot we rebooted: written before the reboot, so a retry never repeats it. */
export const RebootedBootAnnotation = 'packtest.noderepair.dev/rebooted-boot-id';
const FieldManager = 'packtest-controller';

export interface ControllerOptions {
  client: KubeClient;
  openstack: OpenStackClient;
  /** Only Nodes with this label selector are watched (the cluster may hold others). */
  labelSelector: string;
}

export function createController(opts: ControllerOptions): Manager {
  const { client, openstack } = opts;
  const manager = new Manager({ name: 'packtest', probes: false });
  const nodes = manager.informer<KubeNode>(client, NodeResource, {
    labelSelector: opts.labelSelector,
  });
  const ssa = new ServerSideApplier(client, { fieldManager: FieldManager });

  manager
    .controller({
      name: 'packtest-nodes',
      reconcile: async ({ name }, { log }) => {
        const node = nodes.get(name);
        if (!node) return {};
        const cause = classifyNode({ nodeName: name, node }, Date.now(), {
          staleHeartbeatTimeoutMs: 0,
        });
        const annotations = node.metadata?.annotations ?? {};
        const bootID = node.status?.nodeInfo?.bootID ?? '';
        const want: Record<string, string> = { [CauseAnnotation]: cause.kind };
        const rebooted = annotations[RebootedBootAnnotation];
        if (rebooted !== undefined) want[RebootedBootAnnotation] = rebooted;

        const reboot = cause.kind === 'KubeletUnreachable' && rebooted !== bootID;
        if (reboot) want[RebootedBootAnnotation] = bootID;
        if (Object.entries(want).some(([k, v]) => annotations[k] !== v)) {
          // Server-side apply: this field manager owns exactly these two annotations.
          await ssa.apply(NodeResource, { metadata: { name, annotations: want } });
        }
        if (reboot) {
          const id = parseProviderID(node.spec?.providerID ?? '');
          if (id._tag === 'Left') throw new Error(`Node ${name}: ${id.left}`);
          await openstack.nova.reboot(id.right.serverId, 'HARD');
          log.info({ node: name, server: id.right.serverId }, 'hard reboot requested');
        }
        return {};
      },
    })
    .for(nodes);
  return manager;
}
