// The resolved configuration: every default filled in, every value validated. The generator
// only ever sees this shape, so it never has to think about missing fields or bad input.

/** How a health monitor decides whether the watched service is alive. */
export type HealthCheck =
  /** GET the URL; healthy when curl gets a 2xx within the timeout (the kubelet's /healthz). */
  | { readonly type: 'http'; readonly url: string }
  /** `crictl --runtime-endpoint ENDPOINT pods`: the CRI answers within the timeout. */
  | { readonly type: 'crictl'; readonly endpoint: string }
  /** Run a program (absolute path + arguments, no shell); healthy when it exits 0. */
  | { readonly type: 'exec'; readonly command: readonly string[] };

/**
 * How many restarts a monitor may make before it stops acting and leaves the node to node-level
 * repair.
 */
export interface RestartBudget {
  /** At most this many restarts inside the window; then the monitor only logs. */
  readonly maxRestarts: number;
  /** Length of the sliding window the restarts are counted in, in seconds. */
  readonly windowSeconds: number;
}

/** How long a monitor waits after a restart before checking again. */
export interface Backoff {
  /** Wait after the first restart before checking again; doubled per recent restart. */
  readonly initialSeconds: number;
  /** Upper bound of that wait, in seconds. */
  readonly maxSeconds: number;
}

/**
 * One node-local health monitor: a script and systemd unit that checks a service and kills its main
 * process (SIGTERM, then SIGKILL) when it stays unhealthy; a Restart=always drop-in brings it back.
 */
export interface HealthMonitor {
  /** Short DNS-label-like name; used in file and unit names. */
  readonly name: string;
  /** The systemd service to watch and restart, e.g. kubelet.service. */
  readonly unit: string;
  /** How health is tested. */
  readonly check: HealthCheck;
  /** Seconds between checks. */
  readonly intervalSeconds: number;
  /** Seconds one check may take before it counts as failed. */
  readonly timeoutSeconds: number;
  /** Consecutive failed checks before acting: one blip must not restart the kubelet. */
  readonly failureThreshold: number;
  /** No checks until the node has been up this long (uptime, so monitor restarts don't reset it). */
  readonly bootGraceSeconds: number;
  /** Time between SIGTERM and SIGKILL to the main process. */
  readonly killGraceSeconds: number;
  /** Limit on restarts; past it the monitor only logs. */
  readonly restartBudget: RestartBudget;
  /** Wait after a restart before checking again. */
  readonly backoff: Backoff;
  /** RestartSec= in the Restart=always drop-in installed for the watched unit. */
  readonly restartSec: number;
}

/** The node's container runtime, watched by the default `container-runtime` monitor. */
export interface ContainerRuntime {
  /** Its systemd unit, for example `containerd.service`. */
  readonly unit: string;
  /** CRI endpoint, unix:///path or tcp://host:port; crictl gets it explicitly. */
  readonly endpoint: string;
}

/**
 * The resolved configuration the generator works from: every default filled in, every value
 * validated (see loadConfig/validateConfig).
 */
export interface OverlayConfig {
  /** Directories overlaid with tmpfs: changes vanish at reboot. */
  readonly volatile: readonly string[];
  /** Paths (directories or files) inside volatile directories that keep writing to disk. */
  readonly persistent: readonly string[];
  /** tmpfs size= option for the upper layers, e.g. 1G or 10%. */
  readonly tmpfsSize: string;
  /** Directory under /run for the tmpfs mount point and the boot script's progress markers. */
  readonly stateDir: string;
  /** The container runtime, used by the default monitors. */
  readonly containerRuntime: ContainerRuntime;
  /**
   * The monitors to install; the kubelet and container-runtime defaults when the config lists none,
   * nothing for an empty list.
   */
  readonly healthMonitors: readonly HealthMonitor[];
  /**
   * Set by resolveConfig, present only when there is something to say: what is legal but probably
   * not meant (an overlaid /var/lib/kubelet, a persistent path under no volatile directory), one
   * line each, formatted like a ConfigError. The generator ignores it; the CLI prints it on stderr.
   */
  readonly warnings?: readonly string[];
}
