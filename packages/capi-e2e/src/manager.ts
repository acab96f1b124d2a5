import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { freePort, ManagedProcess } from '@noderepair/envtest';

export interface CapiManagerOptions {
  binary: string;
  kubeconfigPath: string;
  /** Logs go to <dir>/cluster-api-controller.log. */
  dir: string;
  /** Holds tls.crt / tls.key for the webhook server. */
  webhookCertDir: string;
  webhookPort: number;
  /** e.g. { MachinePool: false }; the manager's own defaults otherwise. */
  featureGates?: Record<string, boolean>;
  /** klog verbosity (--v). */
  verbosity?: number;
  extraArgs?: string[];
  /** Extra environment over this process's own (e.g. GOGC for an unmeasured run). */
  env?: Record<string, string>;
  startTimeoutMs?: number;
}

function httpStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

/** The real Cluster API core manager (cluster-api-controller) as a local process. */
export class CapiManager {
  private constructor(
    private readonly proc: ManagedProcess,
    readonly healthUrl: string,
    readonly diagnosticsAddress: string,
  ) {}

  get logFile(): string {
    return this.proc.logFile;
  }

  get running(): boolean {
    return this.proc.running;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** The last `bytes` of the manager's log, for failure messages. */
  logTail(bytes = 8_000): string {
    try {
      const s = readFileSync(this.proc.logFile, 'utf8');
      return s.slice(-bytes);
    } catch {
      return '';
    }
  }

  static async start(o: CapiManagerOptions): Promise<CapiManager> {
    const healthPort = await freePort();
    const diagPort = await freePort();
    const gates = Object.entries(o.featureGates ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const args = [
      // One manager, no HA: election would only add a lease round-trip before anything runs.
      '--leader-elect=false',
      `--webhook-port=${o.webhookPort}`,
      `--webhook-cert-dir=${o.webhookCertDir}`,
      `--health-addr=127.0.0.1:${healthPort}`,
      `--diagnostics-address=127.0.0.1:${diagPort}`,
      '--insecure-diagnostics',
      `--v=${o.verbosity ?? 2}`,
      ...(gates ? [`--feature-gates=${gates}`] : []),
      ...(o.extraArgs ?? []),
    ];
    // controller-runtime reads KUBECONFIG when no --kubeconfig flag is given.
    const env = { ...process.env, ...o.env, KUBECONFIG: o.kubeconfigPath };
    const proc = new ManagedProcess('cluster-api-controller', o.binary, args, join(o.dir, 'cluster-api-controller.log'), env);
    proc.start();
    const m = new CapiManager(proc, `http://127.0.0.1:${healthPort}`, `127.0.0.1:${diagPort}`);
    try {
      // readyz includes the webhook server's started check, so conversions work once it is 200.
      const deadline = Date.now() + (o.startTimeoutMs ?? 120_000);
      for (;;) {
        if (!proc.running) throw new Error(`cluster-api-controller exited with code ${String(proc.exitCode)} before it was ready`);
        const status = await httpStatus(`${m.healthUrl}/readyz`).catch(() => 0);
        if (status === 200) break;
        if (Date.now() > deadline) throw new Error('timed out waiting for the Cluster API manager to be ready (/readyz)');
        await new Promise((r) => setTimeout(r, 250));
      }
    } catch (err) {
      const tail = m.logTail(4_000);
      await proc.stop(2_000);
      throw new Error(`${(err as Error).message}\n--- ${proc.logFile} (tail) ---\n${tail}`);
    }
    return m;
  }

  async stop(): Promise<void> {
    await this.proc.stop(10_000);
  }
}
