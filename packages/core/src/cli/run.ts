// `noderepair run`: the standalone auto-repair controller as a process. Reads a kubeconfig
// (or the in-cluster service account) and a policy file, then runs a Manager with the
// auto-repair controller, probes, metrics and optional leader election until SIGTERM.
import * as either from 'fp-ts/lib/Either.js';
import YAML from 'yaml';
import { addAutoRepairController } from '../autorepair/controller.js';
import { installLeaseHolder, LegacyDisruptionLeaseHolder } from '../autorepair/lease-keeper.js';
import { latchLeaseName } from '../autorepair/latch.js';
import { parseBindAddress, parseFlagsStrict, type BindAddress } from '../codec/args.js';
import { resolveRepairPolicy, type RepairPolicy } from '../health/policy.js';
import { knownProviderNames, loadProviderModule, type ProviderChoice } from '../provider/load.js';
import type { ProviderModule } from '../provider/module.js';
import { parseProviderOptions, type GivenOption } from '../provider/options.js';
import { isSiteAction, withSiteSteps } from '../provider/site-steps.js';
import { createKubeClient } from '../kube/client-node/index.js';
import type { ClusterConfig } from '../kube/config/cluster-config.js';
import { loadKubeConfig } from '../kube/config/load.js';
import { defaultLeaderIdentity } from '../runtime/leader/identity.js';
import { createRuntimeLogger } from '../runtime/manager/logging.js';
import { Manager } from '../runtime/manager/manager.js';
import { startProbeServer } from '../runtime/manager/probes.js';
import {
  chooseProvider,
  createProvider,
  dryRunProviderRefusal,
  ladderFor,
  ruleLaddersFor,
  providerHelp,
} from './run-provider.js';

export const runUsage = `usage: noderepair run --policy <policy.yaml> [--kubeconfig <file>] [--dry-run] [--leader-elect]
                     [--metrics-bind-address :8080] [--health-probe-bind-address :8081]
                     [--label-selector <selector>]
                     [--provider <name> | --provider-module <file or package>]
                     [--cloud <name>] [--provider-opt <key=value>]...
                     [--leader-election-namespace <ns>] [--leader-election-id <name>]
                     [--disruption-lease-holder <identity>] [--log-level info]

  --policy                      repair policy (YAML or JSON; see
                                https://github.com/noderepair/noderepair/blob/main/packages/core/docs/autorepair.md)
  --kubeconfig                  kubeconfig file; default: $KUBECONFIG, else the in-cluster service
                                account, else ~/.kube/config
  --dry-run                     decide and report (events, logs, metrics) but change nothing
  --leader-elect                run only while holding a coordination.k8s.io Lease
  --metrics-bind-address        address for /metrics; "0" disables (default :8080)
  --health-probe-bind-address   address for /healthz and /readyz (default :8081)
  --label-selector              watch only the Nodes matching this selector
  --provider                    machine provider by name: openstack, or dry-run (the default;
                                records, repairs nothing, so it runs only with --dry-run)
  --provider-module             a provider from a file (./my-provider.js) or an npm package that
                                exports a ProviderModule (see
                                https://github.com/noderepair/noderepair/blob/main/docs/providers.md)
  --cloud                       the provider's cloud (clouds.yaml entry); same as --provider-opt cloud=NAME
  --provider-opt                an option of the provider, key=value (repeatable; run --help
                                --provider NAME lists them)
  --leader-election-namespace    namespace of the leader-election Lease (default $POD_NAMESPACE, else
                                kube-system)
  --leader-election-id          name of the leader-election Lease (default noderepair-autorepair)
  --disruption-lease-holder     holder identity in the per-node disruption leases (default
                                noderepair/<leader-election-namespace>/<leader-election-id>, with
                                or without --leader-elect): one per install, so two installs never
                                take each other's leases
  --log-level                   debug, info, warn or error (default $LOG_LEVEL, else info): JSON
                                lines on stdout; info tells each repair's story, one line per
                                step, debug adds every decision (see
                                https://github.com/noderepair/noderepair/blob/main/packages/core/docs/autorepair.md#logs)
  Without a ladder in the policy, the default (SoftReboot, HardReboot) is cut to the steps the
  provider can execute; Replace is never in it (a ladder that ends in Replace opts in).`;

export interface RunConfig {
  policyPath: string;
  kubeconfigPath?: string;
  dryRun: boolean;
  leaderElect: boolean;
  leaderElectionNamespace: string;
  leaderElectionId: string;
  /**
   * Our holder identity in the per-node disruption leases: --disruption-lease-holder, else
   * installLeaseHolder(leaderElectionNamespace, leaderElectionId).
   */
  leaseHolder: string;
  metrics: BindAddress | 'disabled';
  probes: BindAddress | 'disabled';
  labelSelector?: string;
  provider: ProviderChoice;
  /** --provider-opt and --cloud, checked against the provider's options once it is loaded. */
  providerOptions: Readonly<Record<string, GivenOption>>;
  /** --log-level, else $LOG_LEVEL, else info. */
  logLevel: LogLevel;
}

/** The levels `run --log-level` accepts, quietest last. */
export const LogLevels = ['debug', 'info', 'warn', 'error'] as const;
/** One of LogLevels. */
export type LogLevel = (typeof LogLevels)[number];

/** A --log-level (or $LOG_LEVEL) value, or an error naming the flag and the allowed values. */
export function parseLogLevel(
  given: string,
  source = '--log-level',
): either.Either<string, LogLevel> {
  const level = LogLevels.find((l) => l === given);
  return level !== undefined
    ? either.right(level)
    : either.left(
        `${source}: unknown level ${JSON.stringify(given)}: expected one of ${LogLevels.join(', ')}`,
      );
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
    'disruption-lease-holder': { type: 'string' },
    'metrics-bind-address': { type: 'string' },
    'health-probe-bind-address': { type: 'string' },
    'label-selector': { type: 'string' },
    provider: { type: 'string' },
    'provider-module': { type: 'string' },
    cloud: { type: 'string' },
    'provider-opt': { type: 'string', multiple: true },
    'log-level': { type: 'string' },
  });
  if (either.isLeft(parsed)) return parsed;
  const values: Record<string, string | string[] | boolean | undefined> = parsed.right;
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
  const providerName = str('provider');
  const providerModule = str('provider-module');
  if (providerName !== undefined && providerModule !== undefined)
    return either.left('--provider and --provider-module exclude each other: give one');
  const provider: ProviderChoice =
    providerModule !== undefined
      ? { kind: 'module', spec: providerModule }
      : { kind: 'name', name: providerName ?? 'dry-run' };
  const providerOptions = parseProviderOptions(
    (values['provider-opt'] as string[] | undefined) ?? [],
    str('cloud'),
  );
  if (either.isLeft(providerOptions)) return providerOptions;
  const kubeconfigPath = str('kubeconfig');
  const labelSelector = str('label-selector');
  const leaderElectionNamespace =
    str('leader-election-namespace') ?? env['POD_NAMESPACE'] ?? 'kube-system';
  const leaderElectionId = str('leader-election-id') ?? 'noderepair-autorepair';
  const leaseHolder = leaseHolderOf(
    str('disruption-lease-holder'),
    leaderElectionNamespace,
    leaderElectionId,
  );
  if (either.isLeft(leaseHolder)) return leaseHolder;
  const levelFlag = str('log-level');
  const logLevel =
    levelFlag !== undefined
      ? parseLogLevel(levelFlag)
      : env['LOG_LEVEL'] !== undefined && env['LOG_LEVEL'] !== ''
        ? parseLogLevel(env['LOG_LEVEL'], 'LOG_LEVEL')
        : either.right<string, LogLevel>('info');
  if (either.isLeft(logLevel)) return logLevel;
  return either.right({
    policyPath,
    ...(kubeconfigPath !== undefined ? { kubeconfigPath } : {}),
    dryRun: values['dry-run'] === true,
    leaderElect: values['leader-elect'] === true,
    leaderElectionNamespace,
    leaderElectionId,
    leaseHolder: leaseHolder.right,
    metrics: metrics.right,
    probes: probes.right,
    ...(labelSelector !== undefined ? { labelSelector } : {}),
    provider,
    providerOptions: providerOptions.right,
    logLevel: logLevel.right,
  });
}

/**
 * The install's holder identity in disruption leases: the one given, else derived from the
 * leader-election Lease's namespace and name, which every replica and restart of one install
 * shares and two installs cannot (the same Lease would make them one install). Without
 * --leader-elect the same two values (POD_NAMESPACE and the default id) name the install.
 * The legacy `noderepair` is refused as an explicit value: it is the one every old install
 * shares, and is adopted only for a repair in flight (coordination.md).
 */
export function leaseHolderOf(
  given: string | undefined,
  namespace: string,
  id: string,
): either.Either<string, string> {
  if (given === undefined) return either.right(installLeaseHolder(namespace, id));
  if (given.trim() === '')
    return either.left('--disruption-lease-holder: expected a non-empty identity');
  if (given === LegacyDisruptionLeaseHolder)
    return either.left(
      `--disruption-lease-holder: "${LegacyDisruptionLeaseHolder}" is the legacy holder every install shared; give one unique to this install, e.g. ${installLeaseHolder(namespace, id)}`,
    );
  return either.right(given);
}

export interface RunIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  readFile: (path: string) => Promise<string>;
  /** Stops the controller (tests); SIGTERM/SIGINT always do. */
  signal?: AbortSignal;
  env?: Record<string, string | undefined>;
  /**
   * Provider modules by `--provider` name, in addition to (and before) the built-in ones:
   * for tests and programs that embed the CLI. A legacy RebootProvider is wrapped with
   * machineProviderFromRebootProvider inside `create`.
   */
  providers?: Readonly<Record<string, ProviderModule>>;
  /** Where relative --provider-module paths and user-installed packages are found (default: process.cwd()). */
  cwd?: string;
}

/** Reads a policy file's text: YAML, resolved strictly; errors name the file and the field. */
export function loadPolicy(
  text: string,
  path: string,
  dryRun: boolean,
): either.Either<string, { policy: RepairPolicy; ladderWritten: boolean }> {
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    return either.left(`${path}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const p = resolveRepairPolicy(doc ?? {});
  if (either.isLeft(p)) return either.left(`${path}: ${p.left}`);
  const ladderWritten =
    doc !== null && typeof doc === 'object' && (doc as { ladder?: unknown }).ladder !== undefined;
  return either.right({ policy: dryRun ? { ...p.right, dryRun: true } : p.right, ladderWritten });
}

/** `run --help [--provider NAME | --provider-module SPEC]`: the usage, the providers, the chosen one's options. */
async function runHelp(args: string[], io: RunIo): Promise<string> {
  // Lenient on purpose: --help must answer even beside flags that would not parse.
  const after = (flag: string) => {
    const i = args.indexOf(flag);
    if (i >= 0) return args[i + 1];
    return args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
  };
  const spec = after('--provider-module');
  const choice: ProviderChoice =
    spec !== undefined
      ? { kind: 'module', spec }
      : { kind: 'name', name: after('--provider') ?? 'dry-run' };
  const chosen = await loadProviderModule(choice, {
    cwd: io.cwd ?? process.cwd(),
    ...(io.providers ? { modules: io.providers } : {}),
  });
  return `${runUsage}\n\n${providerHelp(knownProviderNames(io.providers), chosen)}`;
}

/** `noderepair run`; resolves with the exit code when the controller stops. */
export async function runCommand(args: string[], io: RunIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(await runHelp(args, io));
    return 0;
  }
  const env = io.env ?? {};
  // Embedded without an environment, $LOG_LEVEL is still the process's, as the logger's own default.
  const cfg = parseRunArgs(
    args,
    io.env ?? { ...(process.env['LOG_LEVEL'] ? { LOG_LEVEL: process.env['LOG_LEVEL'] } : {}) },
  );
  if (either.isLeft(cfg)) {
    io.stderr(`noderepair run: ${cfg.left}\n${runUsage}`);
    return 2;
  }
  const c = cfg.right;
  if (c.provider.kind === 'name' && !knownProviderNames(io.providers).includes(c.provider.name)) {
    io.stderr(
      `noderepair run: --provider: unknown provider "${c.provider.name}" (known: ${knownProviderNames(io.providers).join(', ')}; or --provider-module SPEC)`,
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
  const loaded = loadPolicy(policyText, c.policyPath, c.dryRun);
  if (either.isLeft(loaded)) {
    io.stderr(`noderepair run: ${loaded.left}`);
    return 1;
  }
  // The dry-run provider answers "accepted" and does nothing: outside a dry run every repair
  // would cordon and drain a node and then report a success that never happened. A ladder of
  // site steps only (Command, Webhook) never asks it to act, so it may stand in there.
  if (
    !loaded.right.policy.dryRun &&
    c.provider.kind === 'name' &&
    c.provider.name === 'dry-run' &&
    [
      ...loaded.right.policy.ladder,
      ...loaded.right.policy.unhealthyConditions.flatMap((uc) => uc.ladder ?? []),
    ].some((s) => !isSiteAction(s.action))
  ) {
    io.stderr(`noderepair run: ${dryRunProviderRefusal}`);
    return 2;
  }
  const chosen = await chooseProvider(c.provider, c.providerOptions, {
    cwd: io.cwd ?? process.cwd(),
    ...(io.providers ? { modules: io.providers } : {}),
  });
  if (either.isLeft(chosen)) {
    io.stderr(`noderepair run: ${chosen.left.message}`);
    return chosen.left.code;
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
  const log = createRuntimeLogger({ name: 'noderepair', level: c.logLevel });
  const created = await createProvider(chosen.right.module, {
    cluster: kc,
    options: chosen.right.options,
    env: io.env ?? process.env,
    log: log.child({ provider: chosen.right.module.name }),
    signal: io.signal ?? new AbortController().signal,
  });
  if (either.isLeft(created)) {
    io.stderr(`noderepair run: ${created.left}`);
    return 1;
  }
  // Command and Webhook steps run the site's own automation, whatever the provider.
  const provider = withSiteSteps(created.right, loaded.right.policy.ladder);
  const ladder = ladderFor(loaded.right.policy, loaded.right.ladderWritten, provider);
  if (either.isLeft(ladder)) {
    io.stderr(`noderepair run: ${ladder.left}`);
    return 1;
  }
  const ruleLadders = ruleLaddersFor(loaded.right.policy, provider);
  if (either.isLeft(ruleLadders)) {
    io.stderr(`noderepair run: ${ruleLadders.left}`);
    return 1;
  }
  const policy: RepairPolicy = { ...loaded.right.policy, ladder: ladder.right };
  // FailAfter decides on the machine's power state; without it the option would silently
  // wait for ever, which is the default it was written to change.
  if (policy.shutdown.poweredOff === 'FailAfter' && provider.powerState === undefined) {
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
    logger: log,
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
  addAutoRepairController(manager, {
    client,
    policy,
    provider,
    instance: identity,
    leaseHolder: c.leaseHolder,
    latch: { namespace: c.leaderElectionNamespace, name: latchLeaseName(c.leaderElectionId) },
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
      dryRun: policy.dryRun,
      leaderElect: c.leaderElect,
      disruptionLeaseHolder: c.leaseHolder,
      labelSelector: c.labelSelector,
      provider: provider.name,
      ladder: policy.ladder.map((s) => s.action),
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
