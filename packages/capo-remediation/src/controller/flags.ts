// Command line and environment of the controller process, parsed into one value with errors
// that name the flag. Flags win over the environment. node:util parseArgs in strict mode (core's
// parseFlagsStrict) and core's parseBindAddress, as every noderepair command line: an unknown
// flag is an error naming it, and both controllers accept the same addresses.
import * as E from 'fp-ts/lib/Either.js';
import {
  parseBindAddress,
  parseFlagsStrict,
  type BindAddress,
  type FlagOptions,
} from '@noderepair/core/codec';
import { defaultLeaderIdentity } from '@noderepair/core/runtime';
import { WORKLOAD_CLUSTER_ACCESS, type WorkloadClusterAccess } from './workload-clusters.js';

/** The same type as core's (re-exported so existing imports of this package keep working). */
export type { BindAddress };

/** The controller's command line and environment, parsed and checked by {@link parseFlags}. */
export interface ControllerFlags {
  /** --kubeconfig, else $KUBECONFIG; undefined means in-cluster configuration. */
  readonly kubeconfig: string | undefined;
  /** --leader-elect: elect a leader through a Lease (needed for more than one replica). */
  readonly leaderElect: boolean;
  /** Name of the leader-election Lease (default capo-remediation.noderepair.dev). */
  readonly leaderElectionId: string;
  /** Namespace of that Lease (default $POD_NAMESPACE, else `default`). */
  readonly leaderElectionNamespace: string;
  /** "0" disables the separate metrics listener (metrics stay on the probe port). */
  readonly metricsBindAddress: BindAddress | undefined;
  /** Listener of /healthz and /readyz (default :8081); it cannot be disabled. */
  readonly healthProbeBindAddress: BindAddress;
  /** The only namespace watched (--namespace, else $WATCH_NAMESPACE); undefined watches all. */
  readonly namespace: string | undefined;
  /** This replica's identity for leader election and events: $POD_NAME (else the host name) plus a random suffix. */
  readonly identity: string;
  /** Remediations reconciled in parallel, 1-64 (default 4). */
  readonly concurrency: number;
  /** Identity Secret for Machines without an OpenStackMachine; undefined: such Machines fail to resolve. */
  readonly defaultIdentitySecret: string | undefined;
  /** The cloud in that Secret's clouds.yaml (default `openstack`). */
  readonly defaultCloudName: string;
  /** Where Machines' Nodes are drained and watched (default auto); see USAGE. */
  readonly workloadClusterAccess: WorkloadClusterAccess;
}

/** The controller's --help text. */
export const USAGE = `capo-remediation controller

  --kubeconfig=PATH                   kubeconfig (default: $KUBECONFIG, else in-cluster)
  --leader-elect                      elect a leader through a Lease (for replicas > 1)
  --leader-election-id=NAME           Lease name (default capo-remediation.noderepair.dev)
  --leader-election-namespace=NS      Lease namespace (default $POD_NAMESPACE, else default)
  --metrics-bind-address=[HOST]:PORT  /metrics listener (default :8080; 0 disables)
  --health-probe-bind-address=[HOST]:PORT  /healthz, /readyz (and /metrics) (default :8081)
  --namespace=NS                      watch only this namespace (default $WATCH_NAMESPACE, else all)
  --concurrency=N                     parallel reconciles (default 4)
  --default-identity-secret=NAME      identity Secret for Machines without an OpenStackMachine
  --default-cloud-name=NAME           cloud in that Secret's clouds.yaml (default openstack)
  --workload-cluster-access=MODE      where Machines' Nodes are drained and watched:
                                      auto (default): Cluster API's <cluster>-kubeconfig Secret,
                                        required (missing: the remediation waits, TargetResolved=False);
                                      kubeconfig-secret: the same;
                                      secret-or-management: the Secret, else this cluster
                                        (self-hosted clusters);
                                      management: always this cluster
  -h, --help                          this text
`;

const FLAGS = {
  kubeconfig: { type: 'string' },
  'leader-elect': { type: 'boolean' },
  'leader-election-id': { type: 'string' },
  'leader-election-namespace': { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'health-probe-bind-address': { type: 'string' },
  namespace: { type: 'string' },
  concurrency: { type: 'string' },
  'default-identity-secret': { type: 'string' },
  'default-cloud-name': { type: 'string' },
  'workload-cluster-access': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies FlagOptions;

/**
 * Go controllers accept `--leader-elect=true|false`; parseArgs takes no value for a switch,
 * so the value is read here. `--` (pnpm run passes it through) is dropped.
 */
function normalise(argv: readonly string[]): E.Either<string, string[]> {
  const out: string[] = [];
  for (const a of argv) {
    if (a === '--') continue;
    const m = /^--leader-elect=(.*)$/.exec(a);
    if (!m) out.push(a);
    else if (m[1] === 'true') out.push('--leader-elect');
    else if (m[1] !== 'false')
      return E.left(`--leader-elect: expected true or false, got ${JSON.stringify(m[1])}`);
  }
  return E.right(out);
}

/**
 * Parses the controller's arguments, with defaults from `env` (KUBECONFIG, POD_NAMESPACE,
 * WATCH_NAMESPACE). Left is a message naming the bad flag (unknown flags are errors);
 * Right is the flags, or `'help'` for -h/--help.
 */
export function parseFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, ControllerFlags | 'help'> {
  const args = normalise(argv);
  if (E.isLeft(args)) return args;
  const parsed = parseFlagsStrict(args.right, FLAGS);
  if (E.isLeft(parsed))
    return E.left(
      /^unknown|^unexpected/.test(parsed.left) ? `${parsed.left} (see --help)` : parsed.left,
    );
  const values = parsed.right;
  if (values.help === true) return E.right('help');
  const metrics = parseBindAddress(
    values['metrics-bind-address'] ?? ':8080',
    '--metrics-bind-address',
  );
  if (E.isLeft(metrics)) return metrics;
  const probes = parseBindAddress(
    values['health-probe-bind-address'] ?? ':8081',
    '--health-probe-bind-address',
  );
  if (E.isLeft(probes)) return probes;
  // The Manager's /healthz and /readyz are what the Deployment's probes call.
  if (probes.right === 'disabled')
    return E.left('--health-probe-bind-address: the probes cannot be disabled');
  const concurrency = Number(values.concurrency ?? '4');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    return E.left(
      `--concurrency: expected an integer 1-64, got ${JSON.stringify(values.concurrency)}`,
    );
  const access = values['workload-cluster-access'] ?? 'auto';
  if (!(WORKLOAD_CLUSTER_ACCESS as readonly string[]).includes(access))
    return E.left(
      `--workload-cluster-access: expected one of ${WORKLOAD_CLUSTER_ACCESS.join(', ')}, got ${JSON.stringify(access)}`,
    );
  const podNamespace = env['POD_NAMESPACE'] || undefined;
  return E.right({
    kubeconfig: values.kubeconfig ?? (env['KUBECONFIG'] || undefined),
    leaderElect: values['leader-elect'] === true,
    leaderElectionId: values['leader-election-id'] ?? 'capo-remediation.noderepair.dev',
    leaderElectionNamespace: values['leader-election-namespace'] ?? podNamespace ?? 'default',
    metricsBindAddress: metrics.right === 'disabled' ? undefined : metrics.right,
    healthProbeBindAddress: probes.right,
    namespace: values.namespace ?? (env['WATCH_NAMESPACE'] || undefined),
    identity: defaultLeaderIdentity(env),
    concurrency,
    defaultIdentitySecret: values['default-identity-secret'],
    defaultCloudName: values['default-cloud-name'] ?? 'openstack',
    workloadClusterAccess: access as WorkloadClusterAccess,
  });
}
