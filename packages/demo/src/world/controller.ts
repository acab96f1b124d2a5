// noderepair in the demo is the product a user runs: the compiled CLI of @noderepair/core,
// `noderepair run --provider openstack --cloud NAME --policy FILE`, as a child process, with
// a clouds.yaml (OS_CLIENT_CONFIG_FILE) for the one cloud the demo's servers live in. The
// demo does not wire a controller of its own; what the CLI does is what the demo shows.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ControllerOptions {
  /** The controller's stdout and stderr go to <logDir>/noderepair-controller.log. */
  logDir: string;
  kubeconfigPath: string;
  /** clouds.yaml text (holds credentials: written 0600 to a private directory, never logged). */
  cloudsYaml: string;
  cloud: string;
  /** The policy document (JSON is YAML). */
  policy: unknown;
  /** Told once if the controller exits before the demo stops it. */
  onExit: (message: string) => void;
}

export interface Controller {
  readonly command: string;
  /**
   * Runs `noderepair status` (the compiled CLI, as a user would) with the controller's own
   * kubeconfig and policy, so it judges the fleet by the same rules.
   */
  status(): Promise<StatusOutput>;
  stop(): Promise<void>;
}

export interface StatusOutput {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** @noderepair/core's compiled CLI (a package's src/index.ts and dist/index.js are one level down). */
export function noderepairCli(): string {
  const index = fileURLToPath(import.meta.resolve('@noderepair/core'));
  return join(dirname(dirname(index)), 'dist', 'cli', 'noderepair.js');
}

/** `noderepair run`'s arguments as a user would type them. Pure. */
export function runArgs(o: {
  cloud: string;
  policyPath: string;
  kubeconfigPath: string;
}): string[] {
  return [
    'run',
    '--provider',
    'openstack',
    '--cloud',
    o.cloud,
    '--policy',
    o.policyPath,
    '--kubeconfig',
    o.kubeconfigPath,
    // Several demos (and CI) may share the machine: no fixed ports.
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
  ];
}

/** `noderepair status`'s arguments: the same kubeconfig and policy as `run`. Pure. */
export function statusArgs(o: { policyPath: string; kubeconfigPath: string }): string[] {
  return ['status', '--kubeconfig', o.kubeconfigPath, '--policy', o.policyPath];
}

/** The demo's package directory: `--provider openstack` resolves @noderepair/openstack from it. */
const demoPackageDir = () => fileURLToPath(new URL('../..', import.meta.url));

/** Runs the compiled `noderepair status` once and collects its output. */
export function runStatus(o: {
  policyPath: string;
  kubeconfigPath: string;
}): Promise<StatusOutput> {
  const args = statusArgs(o);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [noderepairCli(), ...args], {
      cwd: demoPackageDir(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    const command = `noderepair ${args.join(' ')}`;
    child.on('error', (e) => resolve({ command, code: null, stdout, stderr: e.message }));
    child.on('close', (code) => resolve({ command, code, stdout, stderr }));
  });
}

export function startController(o: ControllerOptions): Controller {
  // The clouds.yaml carries the cloud's credentials: not in the log directory a user may share.
  const secrets = mkdtempSync(join(tmpdir(), 'noderepair-demo-cloud-'));
  const cloudsPath = join(secrets, 'clouds.yaml');
  writeFileSync(cloudsPath, o.cloudsYaml, { mode: 0o600 });
  const policyPath = join(o.logDir, 'policy.yaml');
  writeFileSync(policyPath, `${JSON.stringify(o.policy, null, 2)}\n`);
  const args = runArgs({ cloud: o.cloud, policyPath, kubeconfigPath: o.kubeconfigPath });
  const log = createWriteStream(join(o.logDir, 'noderepair-controller.log'));
  const child: ChildProcess = spawn(process.execPath, [noderepairCli(), ...args], {
    // This package's directory: `--provider openstack` imports @noderepair/openstack, which
    // the demo depends on (as a user's image installs it beside @noderepair/core).
    cwd: demoPackageDir(),
    env: { ...process.env, OS_CLIENT_CONFIG_FILE: cloudsPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let stopping = false;
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => (tail = `${tail}${String(d)}`.slice(-600)));
  const exited = new Promise<void>((resolve) => {
    child.on('error', (e) => {
      if (!stopping) o.onExit(`noderepair run could not start: ${e.message}`);
      resolve();
    });
    child.on('exit', (code, signal) => {
      if (!stopping)
        o.onExit(
          `noderepair run exited (${code ?? signal}) while the demo ran: ${tail.trim().split('\n').at(-1) ?? ''}`,
        );
      resolve();
    });
  });
  return {
    command: `noderepair ${args.join(' ')}`,
    status: () => runStatus({ policyPath, kubeconfigPath: o.kubeconfigPath }),
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // It stops its informers and finishes the call in flight; a stuck one is not waited for.
        const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(killer);
      }
      await new Promise<void>((r) => log.end(() => r()));
      rmSync(secrets, { recursive: true, force: true });
    },
  };
}
