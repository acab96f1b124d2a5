import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { ensureAssets, type Assets } from './assets.js';
import { writeCredentials, type Credentials } from './credentials.js';
import { kubeConfigFor, writeKubeconfig } from './kubeconfig.js';
import { ManagedProcess } from './process/managed-process.js';
import { freePort } from './process/ports.js';
import { GaveUp, waitFor } from './process/wait.js';
import { installCRDs, type CRDSource } from './crds.js';

/**
 * Settings for kube-controller-manager. The defaults here are shorter than the real ones
 * (grace 8 s, period 1 s, startup grace 20 s) so node-lifecycle tests finish quickly.
 */
export interface ControllerManagerOptions {
  /** How long without kubelet heartbeats before Ready=Unknown. Real default: 50 s. */
  nodeMonitorGracePeriodSeconds?: number;
  /** How often the node lifecycle controller checks nodes. Real default: 5 s. */
  nodeMonitorPeriodSeconds?: number;
  /** Grace for a new node to post its first status. Real default: 60 s. */
  nodeStartupGracePeriodSeconds?: number;
  /** Controllers to run (kube-controller-manager --controllers). */
  controllers?: string[];
  /** Further kube-controller-manager flags, appended last so they override the defaults. */
  extraArgs?: string[];
}

/** How {@link ControlPlane.start} runs the components; every field is optional. */
export interface ControlPlaneOptions {
  /** Run kube-controller-manager (node lifecycle controller by default). */
  controllerManager?: boolean | ControllerManagerOptions;
  /** Where data and logs go; a fresh temp dir by default (removed on stop unless keepDir). */
  dir?: string;
  /** Leave `dir` in place after stop; defaults to true when `dir` was given, false for a temp dir. */
  keepDir?: boolean;
  /** Further kube-apiserver flags, appended after the built-in ones. */
  apiServerExtraArgs?: string[];
  /**
   * Extra environment for etcd and kube-apiserver, over this process's own: e.g. a Go GC
   * setting (GOGC, GOMEMLIMIT) for a test bed that must not be the bottleneck.
   */
  env?: Record<string, string>;
  /** Prints build progress when binaries must be built first. */
  progress?: (line: string) => void;
  /** Milliseconds to wait for each component to become ready. */
  startTimeoutMs?: number;
  /**
   * Node names that get a kubelet identity: a bearer token for user `system:node:<name>` in
   * group `system:nodes` ({@link ControlPlane.nodeKubeConfig}). With any, the apiserver
   * authorizes with `Node,RBAC` and admits with `NodeRestriction`, as a kubeadm cluster does,
   * so a kubelet (real or fake) may write its own Node and Lease and nothing of another node.
   * Each must be a valid Node name (a lower-case DNS subdomain).
   */
  nodeIdentities?: string[];
}

/** A real etcd + kube-apiserver (+ kube-controller-manager) on free loopback ports. */
export class ControlPlane {
  /** A KubeConfig for the admin user (system:masters), ready to make API clients. */
  readonly kubeConfig: KubeConfig;
  private stopped = false;

  private constructor(
    /** Directory holding etcd data, certificates, the kubeconfig and component logs. */
    readonly dir: string,
    /** The API server URL, `https://127.0.0.1:<port>`. */
    readonly server: string,
    /** The API server's reported gitVersion, e.g. `v1.35.4`. */
    readonly version: string,
    /** Path of a kubeconfig file for the admin user, for tools and child processes. */
    readonly kubeconfigPath: string,
    /** etcd's plain-HTTP client URL on loopback. */
    readonly etcdUrl: string,
    /** PEM of the API server's self-signed serving certificate, to trust as CA. */
    readonly caPem: string,
    private readonly credentials: Credentials,
    private readonly etcd: ManagedProcess,
    private readonly apiServer: ManagedProcess,
    private readonly controllerManager: ManagedProcess | undefined,
    private readonly keepDir: boolean,
    private readonly startTimeoutMs: number,
  ) {
    this.kubeConfig = kubeConfigFor({ server, caPem, token: credentials.adminToken });
  }

  /** The admin bearer token (system:masters). */
  get adminToken(): string {
    return this.credentials.adminToken;
  }

  /**
   * A KubeConfig for the kubelet identity of `nodeName` (user `system:node:<nodeName>`), one of
   * the `nodeIdentities` the control plane was started with. The error for any other name lists
   * the names there are (never a token).
   */
  nodeKubeConfig(nodeName: string): KubeConfig {
    return kubeConfigFor({ server: this.server, caPem: this.caPem, token: this.nodeToken(nodeName) });
  }

  /** The bearer token of `nodeName`'s kubelet identity; see {@link ControlPlane.nodeKubeConfig}. */
  nodeToken(nodeName: string): string {
    const token = this.credentials.nodeTokens.get(nodeName);
    if (token !== undefined) return token;
    const known = [...this.credentials.nodeTokens.keys()].map((n) => `"${n}"`);
    throw new Error(
      `envtest: no kubelet identity for node "${nodeName}": nodeIdentities was ${known.length > 0 ? known.join(', ') : 'empty'}`,
    );
  }

  /** Log files of every component, for printing when a test fails. */
  get logFiles(): Record<string, string> {
    const files: Record<string, string> = { etcd: this.etcd.logFile, 'kube-apiserver': this.apiServer.logFile };
    if (this.controllerManager) files['kube-controller-manager'] = this.controllerManager.logFile;
    return files;
  }

  /** Pids of the component processes still running (for leak checks). */
  get pids(): number[] {
    return [this.etcd, this.apiServer, this.controllerManager]
      .filter((p): p is ManagedProcess => p !== undefined && p.running)
      .map((p) => p.pid as number);
  }

  /**
   * Starts etcd, then kube-apiserver (and kube-controller-manager when asked), waiting until the
   * API server is ready. Binaries are built first when none are found. On failure every
   * started process is stopped and the error carries the tail of each component's log.
   */
  static async start(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const kcmOpts: ControllerManagerOptions | undefined =
      opts.controllerManager === true ? {} : opts.controllerManager || undefined;
    const nodeNames = checkNodeNames(opts.nodeIdentities ?? []);
    const assets = await ensureAssets({ needControllerManager: kcmOpts !== undefined, progress: opts.progress });
    if (!opts.dir) sweepOrphanDirs();
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), DIR_PREFIX));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, OWNER_FILE), String(process.pid));
    const timeout = opts.startTimeoutMs ?? 60_000;
    const started: ManagedProcess[] = [];
    try {
      const etcdPort = await freePort();
      const peerPort = await freePort();
      const etcdUrl = `http://127.0.0.1:${etcdPort}`;
      const env = { ...process.env, ...opts.env };
      const etcd = new ManagedProcess('etcd', assets.etcd, etcdArgs(dir, etcdUrl, peerPort), join(dir, 'etcd.log'), env);
      etcd.start();
      started.push(etcd);
      await waitFor(
        'etcd',
        async () => {
          if (!etcd.running) throw new GaveUp(`etcd exited (code ${etcd.exitCode}); see ${etcd.logFile}`);
          return (await httpOk(`${etcdUrl}/health`)) ? true : undefined;
        },
        timeout,
        100,
      );

      const credentials = writeCredentials(dir, nodeNames);
      const port = await freePort();
      const server = `https://127.0.0.1:${port}`;
      const certDir = join(dir, 'certs');
      const apiServer = new ManagedProcess(
        'kube-apiserver',
        assets.kubeApiserver,
        [...apiServerArgs(certDir, etcdUrl, port, credentials), ...(opts.apiServerExtraArgs ?? [])],
        join(dir, 'kube-apiserver.log'),
        env,
      );
      apiServer.start();
      started.push(apiServer);
      const caFile = join(certDir, 'apiserver.crt');
      await waitFor('kube-apiserver serving certificate', async () => (existsSync(caFile) ? true : undefined), timeout, 100);
      const caPem = readFileSync(caFile, 'utf8');
      await waitForApiServer(server, caPem, credentials.adminToken, apiServer, timeout);
      const version = await apiServerVersion(server, caPem, credentials.adminToken);

      const kubeconfigPath = join(dir, 'kubeconfig');
      writeKubeconfig(kubeconfigPath, { server, caPem, token: credentials.adminToken });

      let controllerManager: ManagedProcess | undefined;
      if (kcmOpts) {
        controllerManager = new ManagedProcess(
          'kube-controller-manager',
          assets.kubeControllerManager as string,
          controllerManagerArgs(kubeconfigPath, kcmOpts),
          join(dir, 'kube-controller-manager.log'),
        );
        controllerManager.start();
        started.push(controllerManager);
      }
      return new ControlPlane(
        dir,
        server,
        version,
        kubeconfigPath,
        etcdUrl,
        caPem,
        credentials,
        etcd,
        apiServer,
        controllerManager,
        opts.keepDir ?? opts.dir !== undefined,
        timeout,
      );
    } catch (err) {
      for (const p of started.reverse()) await p.stop(1_000);
      const logs = started.map((p) => `--- ${p.name} (${p.logFile}) ---\n${tailFile(p.logFile)}`).join('\n');
      throw new Error(`envtest: control plane failed to start: ${(err as Error).message}\n${logs}`, { cause: err });
    }
  }

  /** Installs CustomResourceDefinitions from YAML/JSON files or objects and waits until each is Established. */
  installCRDs(sources: CRDSource[], timeoutMs = 30_000): Promise<string[]> {
    return installCRDs(this.kubeConfig, sources, timeoutMs);
  }

  /** Stops kube-apiserver and starts it again on the same port against the same etcd. */
  async restartApiServer(downMs = 0): Promise<void> {
    await this.apiServer.stop();
    if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
    this.apiServer.start();
    await waitForApiServer(this.server, this.caPem, this.adminToken, this.apiServer, this.startTimeoutMs);
  }

  /** Freezes kube-apiserver (SIGSTOP): connections hang, as with a partitioned server. */
  pauseApiServer(): void {
    this.apiServer.signal('SIGSTOP');
  }

  /** Lets a paused kube-apiserver run again (SIGCONT); see {@link ControlPlane.pauseApiServer}. */
  resumeApiServer(): void {
    this.apiServer.signal('SIGCONT');
  }

  /** Compacts etcd to its current revision, so watches from older resourceVersions get 410 Gone. */
  async compactEtcd(): Promise<number> {
    const range = await postJson(`${this.etcdUrl}/v3/kv/range`, { key: Buffer.from('\0').toString('base64') });
    const revision = Number((range as { header?: { revision?: string } }).header?.revision);
    if (!Number.isFinite(revision)) throw new Error('etcd did not report its revision');
    await postJson(`${this.etcdUrl}/v3/kv/compaction`, { revision: String(revision), physical: true });
    return revision;
  }

  /** Prints the tail of each component's log (useful in afterAll when a test failed). */
  logs(lines = 40): string {
    return Object.entries(this.logFiles)
      .map(([name, file]) => `--- ${name} (${file}) ---\n${tailFile(file, lines)}`)
      .join('\n');
  }

  /**
   * Stops kube-controller-manager, kube-apiserver and etcd in that order and removes the data
   * directory unless it is kept. Calling it again does nothing.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.controllerManager?.stop();
    await this.apiServer.stop();
    await this.etcd.stop();
    for (const p of [this.controllerManager, this.apiServer, this.etcd]) p?.closeLog();
    if (!this.keepDir) rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Starts a control plane; see ControlPlane. */
export function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  return ControlPlane.start(opts);
}

const DIR_PREFIX = 'noderepair-envtest-';
const OWNER_FILE = 'owner.pid';

/**
 * Removes temp dirs left by owners that died without stopping (a SIGKILLed test worker: its
 * watchdogs killed the processes, but nobody removed the data).
 */
function sweepOrphanDirs(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
      if (!Number.isInteger(pid) || pid <= 0) continue;
      try {
        process.kill(pid, 0);
      } catch {
        rmSync(dir, { recursive: true, force: true });
      }
    } catch {
      // No owner file yet (being created) or already gone.
    }
  }
}

function etcdArgs(dir: string, url: string, peerPort: number): string[] {
  return [
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${url}`,
    `--advertise-client-urls=${url}`,
    `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
    `--initial-cluster=default=http://127.0.0.1:${peerPort}`,
    // Tests do not need durability; fsync dominates etcd latency on shared disks.
    '--unsafe-no-fsync=true',
    '--log-level=warn',
  ];
}

/** The node names, checked as the apiserver will check them; a bad one is an error naming it. */
function checkNodeNames(names: readonly string[]): string[] {
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  for (const [i, n] of names.entries()) {
    if (n.length > 253 || !dns.test(n))
      throw new Error(`envtest: nodeIdentities[${i}] "${n}" is not a valid Node name (a lower-case DNS subdomain)`);
    if (names.indexOf(n) !== i) throw new Error(`envtest: nodeIdentities[${i}] "${n}" is listed twice`);
  }
  return [...names];
}

function apiServerArgs(certDir: string, etcdUrl: string, port: number, c: Credentials): string[] {
  // Kubelet identities need the Node authorizer (RBAC's system:node binding has no subjects)
  // and NodeRestriction (a node writes only its own Node and Lease). One --authorization-mode
  // flag: a second occurrence would append to the list, and the apiserver refuses duplicates.
  const nodes = c.nodeTokens.size > 0;
  return [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${certDir}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    nodes ? '--authorization-mode=Node,RBAC' : '--authorization-mode=RBAC',
    `--token-auth-file=${c.tokenFile}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${c.serviceAccountPub}`,
    `--service-account-signing-key-file=${c.serviceAccountKey}`,
    // As controller-runtime's envtest: no ServiceAccount controller runs, so Pods would be
    // rejected for lack of the namespace's default ServiceAccount.
    '--disable-admission-plugins=ServiceAccount',
    ...(nodes ? ['--enable-admission-plugins=NodeRestriction'] : []),
    '--endpoint-reconciler-type=none',
    '--v=1',
  ];
}

function controllerManagerArgs(kubeconfig: string, o: ControllerManagerOptions): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--controllers=${(o.controllers ?? ['node-lifecycle-controller']).join(',')}`,
    `--node-monitor-grace-period=${o.nodeMonitorGracePeriodSeconds ?? 8}s`,
    `--node-monitor-period=${o.nodeMonitorPeriodSeconds ?? 1}s`,
    `--node-startup-grace-period=${o.nodeStartupGracePeriodSeconds ?? 20}s`,
    '--leader-elect=false',
    '--secure-port=0',
    '--use-service-account-credentials=false',
    '--v=2',
    ...(o.extraArgs ?? []),
  ];
}

function httpsGet(url: string, caPem: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: caPem, headers: { authorization: `Bearer ${token}` }, timeout: 5_000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

async function waitForApiServer(
  server: string,
  caPem: string,
  token: string,
  proc: ManagedProcess,
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    'kube-apiserver /readyz',
    async () => {
      if (!proc.running) throw new GaveUp(`kube-apiserver exited (code ${proc.exitCode}); see ${proc.logFile}`);
      const r = await httpsGet(`${server}/readyz`, caPem, token);
      return r.status === 200 ? true : undefined;
    },
    timeoutMs,
    200,
  );
}

async function apiServerVersion(server: string, caPem: string, token: string): Promise<string> {
  const r = await httpsGet(`${server}/version`, caPem, token);
  return (JSON.parse(r.body) as { gitVersion: string }).gitVersion;
}

async function httpOk(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return r.ok;
  } catch {
    return false;
  }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const r = await fetch(url, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}: ${text}`);
  return JSON.parse(text);
}

function tailFile(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export type { Assets };
