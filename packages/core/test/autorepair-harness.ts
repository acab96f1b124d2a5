// The standalone auto-repair controller as the autorepair integration tests run it: a
// Manager with no probes, one controller over the Nodes labelled `<scopeLabel>=<scope>`, and
// a drain that does not wait for pods (a fake kubelet never finishes terminating them).
// Outside src/, so it never ships in dist.
import type { CoreV1Api } from '@kubernetes/client-node';
import { either } from 'fp-ts';
import {
  addAutoRepairController,
  type AutoRepairController,
} from '../src/autorepair/controller.js';
import type { RepairPolicy } from '../src/health/policy.js';
import type { LatchRef } from '../src/autorepair/latch.js';
import { parseRepairState, type RepairState } from '../src/health/state.js';
import type { KubeClient } from '../src/kube/client.js';
import type { MachineProvider } from '../src/provider/port.js';
import { Manager } from '../src/runtime/manager/manager.js';
import { createRuntimeLogger } from '../src/runtime/manager/logging.js';
import type { RuntimeLogger } from '../src/runtime/logger.js';

export interface RunningAutoRepair {
  manager: Manager;
  controller: AutoRepairController;
  stop(): Promise<void>;
}

export function startAutoRepair(o: {
  name: string;
  client: KubeClient;
  policy: RepairPolicy;
  provider: MachineProvider;
  scopeLabel: string;
  scope: string;
  /** Default: JSON lines on stdout at $LOG_LEVEL, else warn. */
  logger?: RuntimeLogger;
  /** Where the storm guard's latch is kept (stormGuard.latch). */
  latch?: LatchRef;
}): RunningAutoRepair {
  const manager = new Manager({
    name: o.name,
    probes: false,
    logger:
      o.logger ?? createRuntimeLogger({ name: o.name, level: process.env['LOG_LEVEL'] ?? 'warn' }),
  });
  const controller = addAutoRepairController(manager, {
    client: o.client,
    policy: o.policy,
    provider: o.provider,
    labelSelector: `${o.scopeLabel}=${o.scope}`,
    instance: `int-${o.scope}`,
    ...(o.latch !== undefined ? { latch: o.latch } : {}),
    drain: {
      gracePeriodSeconds: 0,
      pollIntervalMs: 250,
      initialBackoffMs: 250,
      maxBackoffMs: 1000,
    },
  });
  const running = manager.start();
  return {
    manager,
    controller,
    stop: async () => {
      manager.stop();
      await running;
    },
  };
}

/** The repair state persisted on the Node (the default state annotation); throws if garbled. */
export async function repairStateOf(
  core: CoreV1Api,
  name: string,
  annotation = 'noderepair.io/repair-state',
): Promise<RepairState | undefined> {
  const node = await core.readNode({ name });
  const s = parseRepairState(node.metadata?.annotations?.[annotation]);
  if (either.isLeft(s)) throw new Error(s.left);
  return s.right;
}
