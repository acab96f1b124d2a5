// `noderepair run`: the standalone auto-repair controller as a process. Reads a kubeconfig
// (or the in-cluster service account) and a policy file, then runs a Manager with the
// auto-repair controller, probes, metrics and optional leader election until SIGTERM.
import { either } from 'fp-ts';
import YAML from 'yaml';
import { addAutoRepairController } from '../autorepair/controller.js';
import { parseFlagsStrict } from '../codec/args.js';
import { resolveRepairPolicy, type RepairPolicy } from '../health/policy.js';
import { DryRunProvider } from '../provider/dry-run.js';
import type { MachineProvider } from '../provider/port.js';
import { withSiteSteps } from '../provider/site-steps.js';
import { createKubeClient } from '../kube/client-node/index.js';
import type { ClusterConfig } from '../kube/config/cluster-config.js';
import { loadKubeConfig } from '../kube/config/load.js';
import { defaultLeaderIdentity } from '../runtime/leader/identity.js';
import { Manager } from '../runtime/manager/manager.js';
import { startProbeServer } from '../runtime/manager/probes.js';

export const runUsage = `usage: noderepair run --policy <policy.yaml> [--kubeconfig <file>] [--dry-run] [--leader-elect]
                     [--metrics-bind-address :8080] [--health-probe-bind-address :8081]
                     [--label-selector <selector>] [--provider dry-run]
                     [--leader-election-namespace <ns>] [--leader-election-id <name>]

  --policy                      repair policy (YAML or JSON; see docs/autorepair.md)
  --kubeconfig                  kubeconfig file; default: $KUBECONFIG, else the in-cluster service
                                account, else ~/.kube/config
  --dry-run                     decide and report (events, logs, metrics) but change nothing
  --leader-elect                run only while holding a coordination.k8s.io Lease
  --metrics-bind-address        address for /metrics; "0" disables (default :8080)
  --health-probe-bind-address   address for /healthz and /readyz (default :8081)
  --label-selector              watch only the Nodes matching this selector
  --provider                    machine provider (default dry-run: records, never reboots, fences nothing)`;

export interface BindAddress {
  host?: string;
  port: number;
}

/** ":8080", "127.0.0.1:8080", "8080"; "0" means disabled (controller-runtime's convention). Pure. */
export function parseBindAddress(
  value: string,
  flag: string,
): either.Either<string, BindAddress | 'disabled'> {
  if (value === '0') return either.right('disabled');
  const m = /^(?:(\[[0-9a-fA-F:]+\]|[^:]*):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    return either.left(
      `${flag}: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got "${value}"`,
    );
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : undefined;
  return either.right({ ...(host ? { host } : {}), port });
}

export interface RunConfig {
  policyPath: string;
  kubeconfigPath?: string;
  dryRun: boolean;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  metrics: BindAddress | 'disabled';
  probes: BindAddress | 'disabled';
  labelSelector?: string;
  provider: string;
}

/** Parses `run`'s flags (pure; env gives the defaults a Pod would set). */
export function parseRunArgs(
  args: string[],
  env: Record<string, string | undefined> = {},
): either.Either<string, RunConfig> {
  const parsed = parseFlagsStrict(args, {
    policy: { type: 'string' },
    kubeconfig: { type: 'string' },
    'dry-run': { type: 'boolean' },
    'leader-elect': { type: 'boolean' },
    'leader-election-namespace': { type: 'string' },
    'leader-election-id': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    'health-probe-bind-address': { type: 'string' },
    'label-selector': { type: 'string' },
    provider: { type: 'string' },
  });
  if (either.isLeft(parsed)) return parsed;
  const values: Record<string, string | boolean | undefined> = parsed.right;
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const policyPath = str('policy');
  if (policyPath === undefined) return either.left('--policy is required');
  const metrics = parseBindAddress(
    str('metrics-bind-address') ?? ':8080',
    '--metrics-bind-address',
  );
  if (either.isLeft(metrics)) return metrics;
  const probes = parseBindAddress(
    str('health-probe-bind-address') ?? ':8081',
    '--health-probe-bind-address',
  );
  if (either.isLeft(probes)) return probes;
  const provider = str('provider') ?? 'dry-run';
  const kubeconfigPath = str('kubeconfig');
  const labelSelector = str('label-selector');
  return either.right({
    policyPath,
    ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}),
    dryRun: values['dry-run'] === true,
    leaderElect: values['leader-elect'] === true,
    leaderElectionNamespace:
      str('leader-election-namespace') ?? env['POD_NAMESPACE'] ?? 'kube-system',
    leaderElectionId: str('leader-election-id') ?? 'noderepair-autorepair',
    metrics: metrics.right,
    probes: probes.right,
    ...(labelSelector !== undefined ? { labelSelector } : {}),
    provider,
  });
}

/**
 * Machine providers a build of the CLI knows by name. Core knows only the dry-run one. A
 * legacy RebootProvider is wrapped with machineProviderFromRebootProvider.
 */
export type ProviderFactories = Record<string, (cluster: ClusterConfig) => MachineProvider>;
export const coreProviders: ProviderFactories = { 'dry-run': () => new DryRunProvider() };

export interface RunIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readFile: (path: string) => Promise<string>;
  /** Stops the controller (tests); SIGTERM/SIGINT always do. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  providers?: ProviderFactories;
}

function loadPolicy(
  text: string,
  path: string,
  dryRun: boolean,
): either.Either<string, RepairPolicy> {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    return either.left(`${path}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const p = resolveRepairPolicy(doc ?? {});
  if (either.isLeft(p)) return either.left(`${path}: ${p.left}`);
  return either.right(dryRun ? { ...p.right, dryRun: true } : p.right);
}

/** `noderepair run`; resolves with the exit code when the controller stops. */
export async function runCommand(args: string[], io: RunIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(runUsage);
    return 0;
  }
  const env = io.env ?? {};
  const cfg = parseRunArgs(args, env);
  if (either.isLeft(cfg)) {
    io.stderr(`noderepair run: ${cfg.left}\n${runUsage}`);
    return 2;
  }
  const c = cfg.right;
  const providers = io.providers ?? coreProviders;
  const factory = providers[c.provider];
  if (factory === undefined) {
    io.stderr(
      `noderepair run: --provider: unknown provider "${c.provider}" (known: ${Object.keys(providers).join(', ')})`,
    );
    return 2;
  }
  let policyText: string;
  try {
    policyText = await io.readFile(c.policyPath);
  } catch (e) {
    io.stderr(
      `noderepair run: cannot read ${c.policyPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
    return 1;
  }
  const policy = loadPolicy(policyText, c.policyPath, c.dryRun);
  if (either.isLeft(policy)) {
    io.stderr(`noderepair run: ${policy.left}`);
    return 1;
  }
  // Core's own loader: @kubernetes/client-node (~80 MiB resident) is imported only if the
  // kubeconfig's user runs an exec or auth-provider plugin.
  let kc: ClusterConfig;
  try {
    kc = await loadKubeConfig({ path: c.kubeconfigPath, env: io.env ?? process.env });
  } catch (e) {
    io.stderr(
      `noderepair run: cannot load the kubeconfig${c.kubeconfigPath ? ` ${c.kubeconfigPath}` : ''}: ${(e as Error).message}`,
    );
    return 1;
  }
  const provider = withSiteSteps(factory(kc), policy.right.ladder);
  const unsupported = policy.right.ladder
    .map((st) => st.action)
    .filter((a) => !provider.actions.has(a));
  if (unsupported.length > 0) {
    io.stderr(
      `noderepair run: the policy's ladder uses ${[...new Set(unsupported)].join(', ')}, which provider "${provider.name}" cannot execute (it can: ${[...provider.actions].join(', ')})`,
    );
    return 1;
  }
  // FailAfter decides on the machine's power state; without it the option would silently
  // wait for ever, which is the default it was written to change.
  if (policy.right.shutdown.poweredOff === 'FailAfter' && provider.powerState === undefined) {
    io.stderr(
      `noderepair run: the policy's shutdown.poweredOff is FailAfter, which needs the machine's power state, and provider "${provider.name}" cannot tell it`,
    );
    return 1;
  }
  const client = createKubeClient(kc);
  const identity = defaultLeaderIdentity(env);
  const sameAddress =
    c.metrics !== 'disabled' &&
    c.probes !== 'disabled' &&
    c.metrics.port === c.probes.port &&
    c.metrics.host === c.probes.host;
  const manager = new Manager({
    name: 'noderepair',
    handleSignals: true,
    probes:
      c.probes === 'disabled'
        ? false
        : { port: c.probes.port, ...(c.probes.host ? { host: c.probes.host } : {}) },
    ...(c.leaderElect
      ? {
          leaderElection: {
            client,
            namespace: c.leaderElectionNamespace,
            name: c.leaderElectionId,
            identity,
          },
        }
      : {}),
  });
  if (!policy.right.dryRun && provider instanceof DryRunProvider)
    manager.log.warn(
      { provider: provider.name },
      'the dry-run provider records reboots and performs none: nodes are cordoned and drained for real, then wait for someone to reboot them',
    );
  addAutoRepairController(manager, {
    client,
    policy: policy.right,
    provider,
    instance: identity,
    ...(c.labelSelector !== undefined ? { labelSelector: c.labelSelector } : {}),
  });
  // /metrics is always on the probe server too; a separate address gets its own listener.
  const metricsServer =
    c.metrics !== 'disabled' && !sameAddress
      ? await startProbeServer(
          { healthy: () => true, notReadyReason: () => null },
          manager.metrics.registry,
          { port: c.metrics.port, ...(c.metrics.host ? { host: c.metrics.host } : {}) },
        )
      : undefined;
  manager.log.info(
    {
      dryRun: policy.right.dryRun,
      leaderElect: c.leaderElect,
      labelSelector: c.labelSelector,
      provider: provider.name,
    },
    'noderepair auto-repair controller starting',
  );
  try {
    await manager.start(io.signal);
    return 0;
  } catch (e) {
    io.stderr(`noderepair run: ${(e as Error).message}`);
    return 1;
  } finally {
    if (metricsServer) {
      metricsServer.closeAllConnections();
      await new Promise<void>((r) => metricsServer.close(() => r()));
    }
  }
}
