// The capo-remediation controller as the Deployment runs it: node on the compiled dist entry
// point (no TypeScript loader adding its own memory and CPU), with the kubeconfig of the
// bench's `noderepair` ServiceAccount (bound to cluster-admin, and counted under its own
// FlowSchema by the management apiserver's APF counters). Its workload clusters are reached
// as deployed: --workload-cluster-access=auto, through Cluster API's kubeconfig Secrets.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ManagedProcess } from '@noderepair/envtest';
import { readyz } from '../proc/readyz.js';

export const CAPO_CONTROLLER_MAIN = fileURLToPath(
  new URL('../../../capo-remediation/dist/controller/main.js', import.meta.url),
);

export class CapoControllerProcess {
  private constructor(
    private readonly proc: ManagedProcess,
    readonly probeUrl: string,
  ) {}

  get pid(): number {
    const pid = this.proc.pid;
    if (pid === undefined || !this.proc.running) throw new Error('capo controller is not running');
    return pid;
  }

  get running(): boolean {
    return this.proc.running;
  }

  logTail(chars = 3000): string {
    try {
      return readFileSync(this.proc.logFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  }

  static async start(o: {
    kubeconfigPath: string;
    dir: string;
    tag: string;
  }): Promise<CapoControllerProcess> {
    if (!existsSync(CAPO_CONTROLLER_MAIN))
      throw new Error(`${CAPO_CONTROLLER_MAIN} is missing: run \`pnpm run build\` first`);
    const port = await freePort();
    const proc = new ManagedProcess(
      'capo-remediation',
      process.execPath,
      [
        CAPO_CONTROLLER_MAIN,
        `--kubeconfig=${o.kubeconfigPath}`,
        '--metrics-bind-address=0',
        `--health-probe-bind-address=127.0.0.1:${port}`,
      ],
      join(o.dir, `capo-remediation-${o.tag}.log`),
      { ...process.env, POD_NAME: `capo-bench-${o.tag}`, POD_NAMESPACE: 'default' },
    );
    proc.start();
    const p = new CapoControllerProcess(proc, `http://127.0.0.1:${port}`);
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      if (!proc.running) throw new Error(`capo controller exited:\n${p.logTail()}`);
      if (await p.ready()) return p;
      await new Promise((r) => setTimeout(r, 250));
    }
    await proc.stop(5_000);
    throw new Error(`capo controller not ready within 120 s:\n${p.logTail()}`);
  }

  /** GET /readyz: 200 once its informers have synced. */
  ready(): Promise<boolean> {
    return readyz(this.probeUrl);
  }

  async stop(): Promise<void> {
    await this.proc.stop(10_000);
  }
}
