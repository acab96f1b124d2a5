// `noderepair reset-latch`: a person's reset of the storm guard's latch (stormGuard.latch).
// The controller sets the latch after its storm guard held repairs too long and then starts
// no repair; only a person releases it, by removing the annotation from the latch Lease. This
// command does that, where `noderepair run` with the same flags keeps it, and says what was set.
import { parseArgs } from 'node:util';
import { describeFlagError } from '../codec/args.js';
import { LatchAnnotation, LatchStore, type LatchRef } from '../autorepair/latch.js';
import { iso } from '../health/time.js';
import { createKubeClient } from '../kube/client-node/index.js';
import type { KubeClient } from '../kube/client.js';
import { loadKubeConfig } from '../kube/config/load.js';
import { ForbiddenError, NotFoundError } from '../kube/errors.js';
import { latchRefOf } from './status.js';

export const resetLatchUsage = `usage: noderepair reset-latch [--kubeconfig <file>] [--leader-election-namespace <ns>]
                             [--leader-election-id <name>]

  Releases the storm guard's latch (stormGuard.latch): removes the ${LatchAnnotation}
  annotation from the Lease <leader-election-id>-latch in the leader-election namespace, as
  \`noderepair run\` with the same flags keeps it. The controller starts repairs again at the
  held nodes' next recheck; its storm guard must hold afterHeldFor again before it latches again.

  --kubeconfig                  kubeconfig file; default: $KUBECONFIG, else the in-cluster
                                service account, else ~/.kube/config
  --leader-election-namespace   the controller's own (default $POD_NAMESPACE, else kube-system)
  --leader-election-id          the controller's own (default noderepair-autorepair)`;

const flags = {
  kubeconfig: { type: 'string' },
  'leader-election-namespace': { type: 'string' },
  'leader-election-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ResetLatchIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env?: Record<string, string | undefined>;
  /** The client (tests); default: the kubeconfig's apiserver. */
  client?: (kubeconfigPath: string | undefined) => Promise<KubeClient>;
}

/**
 * `noderepair reset-latch`; resolves with the exit code (0 done or not set, 1 failed, 2 usage
 * or no such latch Lease: most likely the wrong namespace or id).
 */
export async function resetLatchCommand(
  args: readonly string[],
  io: ResetLatchIo,
): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: [...args], options: flags, strict: true }));
  } catch (e) {
    io.stderr(`noderepair reset-latch: ${describeFlagError(e, flags)}\n${resetLatchUsage}`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(resetLatchUsage);
    return 0;
  }
  const env = io.env ?? process.env;
  const ref: LatchRef = latchRefOf(
    {
      ...(values['leader-election-namespace'] !== undefined
        ? { leaderElectionNamespace: values['leader-election-namespace'] }
        : {}),
      ...(values['leader-election-id'] !== undefined
        ? { leaderElectionId: values['leader-election-id'] }
        : {}),
    },
    env,
  );
  const where = `Lease ${ref.namespace}/${ref.name}`;
  try {
    const client =
      io.client !== undefined
        ? await io.client(values.kubeconfig)
        : createKubeClient(await loadKubeConfig({ path: values.kubeconfig, env }));
    const was = await new LatchStore(client, ref).reset();
    if (was === undefined) io.stdout(`noderepair reset-latch: the latch is not set (${where})`);
    else if (was.kind === 'latched')
      io.stdout(
        `noderepair reset-latch: reset the latch set since ${iso(was.since)} (${where}): ${was.reason}`,
      );
    else
      io.stdout(`noderepair reset-latch: removed an unreadable latch (${where}): ${was.problem}`);
    return 0;
  } catch (e) {
    if (e instanceof NotFoundError) {
      io.stderr(
        `noderepair reset-latch: no ${where}: the controller keeps its latch beside its leader-election Lease; is it running in another namespace (e.g. noderepair-system)? Pass --leader-election-namespace (and --leader-election-id if it has its own)`,
      );
      return 2;
    }
    const why = e instanceof ForbiddenError ? 'missing permission: ' : '';
    io.stderr(
      `noderepair reset-latch: cannot reset the latch on ${where}: ${why}${(e as Error).message}`,
    );
    return 1;
  }
}
