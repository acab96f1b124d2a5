// Command line and environment of the controller process, parsed into one value with errors
// that name the flag. Flags win over the environment.
import * as E from 'fp-ts/lib/Either.js';
import { WORKLOAD_CLUSTER_ACCESS, type WorkloadClusterAccess } from './workload-clusters.js';

export interface BindAddress {
  readonly host: string | undefined;
  readonly port: number;
}

export interface ControllerFlags {
  readonly kubeconfig: string | undefined;
  readonly leaderElect: boolean;
  readonly leaderElectionId: string;
  readonly leaderElectionNamespace: string;
  /** "0" disables the separate metrics listener (metrics stay on the probe port). */
  readonly metricsBindAddress: BindAddress | undefined;
  readonly healthProbeBindAddress: BindAddress;
  readonly namespace: string | undefined;
  readonly identity: string;
  readonly concurrency: number;
  readonly defaultIdentitySecret: string | undefined;
  readonly defaultCloudName: string;
  readonly workloadClusterAccess: WorkloadClusterAccess;
}

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
                                        else this cluster (self-hosted);
                                      kubeconfig-secret: the Secret, required;
                                      management: always this cluster
`;

export function parseBindAddress(
  flag: string,
  v: string,
): E.Either<string, BindAddress | undefined> {
  if (v === '0') return E.right(undefined);
  const m = /^(.*):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    return E.left(`--${flag}: expected [host]:port or 0, got ${JSON.stringify(v)}`);
  return E.right({ host: m[1] === '' ? undefined : m[1], port });
}

export function parseFlags(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): E.Either<string, ControllerFlags | 'help'> {
  const values = new Map<string, string>();
  const booleans = new Set(['leader-elect']);
  const known = new Set([
    'kubeconfig',
    'leader-elect',
    'leader-election-id',
    'leader-election-namespace',
    'metrics-bind-address',
    'health-probe-bind-address',
    'namespace',
    'concurrency',
    'default-identity-secret',
    'default-cloud-name',
    'workload-cluster-access',
  ]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--help' || a === '-h') return E.right('help');
    if (a === '--') continue; // pnpm run passes the separator through
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) return E.left(`unexpected argument ${JSON.stringify(a)} (see --help)`);
    const name = m[1] as string;
    if (!known.has(name)) return E.left(`unknown flag --${name} (see --help)`);
    let value = m[2];
    if (value === undefined) {
      if (booleans.has(name)) value = 'true';
      else {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--')) return E.left(`--${name} needs a value`);
        value = next;
        i++;
      }
    }
    values.set(name, value);
  }
  const leaderElect = values.get('leader-elect') ?? 'false';
  if (leaderElect !== 'true' && leaderElect !== 'false')
    return E.left(`--leader-elect: expected true or false, got ${JSON.stringify(leaderElect)}`);
  const metrics = parseBindAddress(
    'metrics-bind-address',
    values.get('metrics-bind-address') ?? ':8080',
  );
  if (E.isLeft(metrics)) return metrics;
  const probes = parseBindAddress(
    'health-probe-bind-address',
    values.get('health-probe-bind-address') ?? ':8081',
  );
  if (E.isLeft(probes)) return probes;
  if (probes.right === undefined)
    return E.left('--health-probe-bind-address: the probes cannot be disabled');
  const concurrency = Number(values.get('concurrency') ?? '4');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    return E.left(
      `--concurrency: expected an integer 1-64, got ${JSON.stringify(values.get('concurrency'))}`,
    );
  const access = values.get('workload-cluster-access') ?? 'auto';
  if (!(WORKLOAD_CLUSTER_ACCESS as readonly string[]).includes(access))
    return E.left(
      `--workload-cluster-access: expected one of ${WORKLOAD_CLUSTER_ACCESS.join(', ')}, got ${JSON.stringify(access)}`,
    );
  const podNamespace = env['POD_NAMESPACE'] || undefined;
  return E.right({
    kubeconfig: values.get('kubeconfig') ?? (env['KUBECONFIG'] || undefined),
    leaderElect: leaderElect === 'true',
    leaderElectionId: values.get('leader-election-id') ?? 'capo-remediation.noderepair.dev',
    leaderElectionNamespace: values.get('leader-election-namespace') ?? podNamespace ?? 'default',
    metricsBindAddress: metrics.right,
    healthProbeBindAddress: probes.right,
    namespace: values.get('namespace') ?? (env['WATCH_NAMESPACE'] || undefined),
    identity: env['POD_NAME'] || `capo-remediation-${process.pid}`,
    concurrency,
    defaultIdentitySecret: values.get('default-identity-secret'),
    defaultCloudName: values.get('default-cloud-name') ?? 'openstack',
    workloadClusterAccess: access as WorkloadClusterAccess,
  });
}
