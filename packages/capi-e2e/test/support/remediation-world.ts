// The noderepair side of the end-to-end scenarios: FakeOpenStack as the cloud (named fake
// Keystone + Nova), its clouds.yaml in the `cloud-config` Secret the harness's
// OpenStackMachines name as identityRef, our CRDs, and the OpenStackRemediation controller
// running in-process on its own @noderepair/core Manager against the same kube-apiserver as
// the real Cluster API manager.
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { addRemediationController } from '@noderepair/capo-remediation';
import { FakeOpenStack } from '@noderepair/openstack/testing';
import { createKubeClient } from '@noderepair/core/kube';
import { Manager, type RuntimeLogger } from '@noderepair/core/runtime';
import type { FakeKubelet } from '@noderepair/envtest';

const capoPkg = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'capo-remediation');
export const REMEDIATION_GROUP = 'remediation.noderepair.dev';
export const REMEDIATION_VERSION = 'v1alpha1';

/** Our CRDs, as shipped in packages/capo-remediation/config/crd. */
export const remediationCRDs = ['openstackremediationtemplates', 'openstackremediations'].map((p) =>
  join(capoPkg, 'config', 'crd', `${REMEDIATION_GROUP}_${p}.yaml`),
);

/** Keeps the controller's log records as JSON lines (written to a file on failure). */
export class LineLogger implements RuntimeLogger {
  constructor(
    readonly lines: string[] = [],
    private readonly bindings: Record<string, unknown> = {},
  ) {}
  private push(level: string, obj: object, msg?: string): void {
    this.lines.push(
      JSON.stringify(
        { t: new Date().toISOString(), level, ...this.bindings, ...obj, msg },
        (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message } : v),
      ),
    );
  }
  debug(obj: object, msg?: string): void {
    this.push('debug', obj, msg);
  }
  info(obj: object, msg?: string): void {
    this.push('info', obj, msg);
  }
  warn(obj: object, msg?: string): void {
    this.push('warn', obj, msg);
  }
  error(obj: object, msg?: string): void {
    this.push('error', obj, msg);
  }
  child(bindings: Record<string, unknown>): RuntimeLogger {
    return new LineLogger(this.lines, { ...this.bindings, ...bindings });
  }
  dump(file: string): void {
    appendFileSync(file, this.lines.join('\n') + '\n');
  }
}

/** Our controller on its own Manager, watching only the scenario namespace. */
export function startRemediationController(kc: KubeConfig, namespace: string) {
  const logger = new LineLogger();
  const manager = new Manager({ name: 'capo-remediation-e2e', probes: false, logger });
  addRemediationController(manager, {
    client: createKubeClient(kc),
    namespace,
    identity: 'capo-remediation-e2e',
    drainPollIntervalMs: 200,
    // Self-hosted: the Machines' Nodes are in this cluster. The management-cluster fallback
    // is explicit (auto requires Cluster API's <cluster>-kubeconfig Secret).
    workloadClusterAccess: 'secret-or-management',
  });
  const running = manager.start();
  return {
    logger,
    stop: async () => {
      manager.stop();
      await running;
    },
  };
}

/**
 * TEST DOUBLE WIRING, not a product feature: the fake Nova knows nothing of the fake kubelets,
 * so this watches the fake's request log and, for each reboot Nova accepted, reboots the fake
 * kubelet of the Machine whose server it was (heartbeats resume with a new boot ID), unless
 * the test made that machine "hopeless" (a server whose reboot never brings the node back).
 */
export class FakeNovaRebootsFakeKubelets {
  /** Server uuid -> Machine name (filled by serverFor, the harness's newServerId callback). */
  readonly machineOf = new Map<string, string>();
  readonly hopeless = new Set<string>();
  readonly rebooted: Array<{
    machine: string;
    serverId: string;
    at: number;
    kubeletRebooted: boolean;
  }> = [];
  private seen = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly fake: FakeOpenStack,
    private readonly kubelets: () => Map<string, FakeKubelet>,
    private readonly downMs = 1_000,
  ) {}

  /** newServerId for startCapiEnvironment: registers the server at the fake first. */
  readonly serverFor = (machineName: string): string => {
    const id = this.fake.addServer({ name: machineName });
    this.machineOf.set(id, machineName);
    return id;
  };

  start(everyMs = 200): void {
    this.timer = setInterval(() => this.poll(), everyMs);
  }

  private poll(): void {
    const log = this.fake.requests;
    for (; this.seen < log.length; this.seen++) {
      const e = log[this.seen];
      if (!e || e.action !== 'reboot' || e.status !== 202 || !e.serverId) continue;
      const machine = this.machineOf.get(e.serverId);
      if (!machine) continue;
      const kubelet = this.kubelets().get(machine);
      const revive = kubelet !== undefined && !this.hopeless.has(machine);
      this.rebooted.push({
        machine,
        serverId: e.serverId,
        at: Date.now(),
        kubeletRebooted: revive,
      });
      if (revive) {
        const p = kubelet.reboot(this.downMs).catch(() => undefined);
        this.pending.add(p);
        void p.finally(() => this.pending.delete(p));
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.pending);
  }
}

export async function startFakeOpenStack(): Promise<FakeOpenStack> {
  return FakeOpenStack.start({ transitionDelayMs: 300 });
}
