// Our controller as the operator runs it: `noderepair run` from @noderepair/core's compiled
// dist (not through a TypeScript loader, which would add its own memory and CPU), as the
// `noderepair` identity, in dry-run: it decides and reports (Events) and changes nothing.
// The policy is the MHC's rule: Ready=False or Unknown for the timeout -> remediate, with
// the storm guard opened wide so 1 % of the nodes failing at once all proceed (as the MHC's
// default unhealthyLessThanOrEqualTo 100 % lets them).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ManagedProcess } from '@noderepair/envtest';
import { readyz } from '../proc/readyz.js';

export const NODEREPAIR_CLI = fileURLToPath(
  new URL('../../../core/dist/cli/noderepair.js', import.meta.url),
);

/** The policy (pure): the same rule and timeout as the bench's MachineHealthCheck. */
export function benchPolicy(timeoutSeconds: number): Record<string, unknown> {
  return {
    dryRun: true,
    unhealthyConditions: [
      { type: 'Ready', status: 'False', timeout: `${timeoutSeconds}s` },
      { type: 'Ready', status: 'Unknown', timeout: `${timeoutSeconds}s` },
    ],
    stormGuard: { maxUnhealthy: '100%', maxInFlight: 100_000 },
    drain: { enabled: false },
  };
}

export class NodeRepairProcess {
  private constructor(
    private readonly proc: ManagedProcess,
    readonly probeUrl: string,
  ) {}

  get pid(): number {
    const pid = this.proc.pid;
    if (pid === undefined) throw new Error('noderepair run is not running');
    return pid;
  }

  get running(): boolean {
    return this.proc.running;
  }

  get logFile(): string {
    return this.proc.logFile;
  }

  /** GET /readyz: 200 once its Node informer has synced. */
  ready(): Promise<boolean> {
    return readyz(this.probeUrl);
  }

  static async start(o: {
    kubeconfigPath: string;
    dir: string;
    timeoutSeconds: number;
    tag: string;
  }): Promise<NodeRepairProcess> {
    if (!existsSync(NODEREPAIR_CLI))
      throw new Error(
        `${NODEREPAIR_CLI} is missing: run \`pnpm run build\` first (pnpm bench does)`,
      );
    const policy = join(o.dir, 'noderepair-policy.json');
    writeFileSync(policy, JSON.stringify(benchPolicy(o.timeoutSeconds), null, 2));
    const logFile = join(o.dir, `noderepair-${o.tag}.log`);
    // A free port can be taken by another process before ours binds it (a shared machine):
    // then it exits with EADDRINUSE and is started again on another port.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const proc = new ManagedProcess(
        'noderepair',
        process.execPath,
        [
          NODEREPAIR_CLI,
          'run',
          '--kubeconfig',
          o.kubeconfigPath,
          '--policy',
          policy,
          '--dry-run',
          '--metrics-bind-address',
          '0',
          '--health-probe-bind-address',
          `127.0.0.1:${port}`,
        ],
        logFile,
      );
      proc.start();
      const p = new NodeRepairProcess(proc, `http://127.0.0.1:${port}`);
      const deadline = Date.now() + 180_000;
      while (proc.running && Date.now() < deadline && !(await p.listening())) {
        await new Promise((r) => setTimeout(r, 100));
      }
      if (proc.running) return p;
      const tail = readFileSync(logFile, 'utf8').slice(-2000);
      if (!tail.includes('EADDRINUSE') || attempt >= 3)
        throw new Error(`noderepair run exited (code ${String(proc.exitCode)}):\n${tail}`);
    }
  }

  /** The probe server answers (with any status). */
  private async listening(): Promise<boolean> {
    try {
      await fetch(`${this.probeUrl}/healthz`, { signal: AbortSignal.timeout(1_000) });
      return true;
    } catch {
      return false;
    }
  }

  async stop(): Promise<void> {
    await this.proc.stop(10_000);
  }
}
