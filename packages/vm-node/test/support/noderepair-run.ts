// `noderepair run` as the process an operator starts: core's CLI entry point under tsx (the
// workspace's TypeScript sources, as the chaos suite runs it), loading the test hypervisor's
// provider module with --provider-module. Its output is kept for failure messages and for the
// check that no credential reaches it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
export const NODEREPAIR_CLI = `${repo}packages/core/src/cli/noderepair.ts`;
export const TEST_HYPERVISOR_PROVIDER = `${repo}packages/vm-node/src/test-hypervisor/provider.ts`;

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class NoderepairRun {
  /** Every line the process wrote, stdout and stderr interleaved. */
  readonly lines: string[] = [];
  readonly exited: Promise<Exit>;
  #exit: Exit | undefined;
  readonly #kill: (sig: NodeJS.Signals) => void;

  /** Starts `noderepair run <args>`; tsx resolves from this package, which depends on it. */
  constructor(args: readonly string[]) {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', NODEREPAIR_CLI, 'run', ...args],
      {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let partial = '';
    const onData = (b: Buffer) => {
      const parts = (partial + b.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts.filter((l) => l !== ''));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      }),
    );
    this.#kill = (sig) => child.kill(sig);
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** The last `n` lines, for an error message. */
  tail(n = 40): string {
    return this.lines.slice(-n).join('\n');
  }

  /** SIGTERM (a clean stop, exit 0), then SIGKILL if it has not stopped within `graceMs`. */
  async stop(graceMs = 15_000): Promise<Exit> {
    if (!this.running) return this.exited;
    this.#kill('SIGTERM');
    const timer = setTimeout(() => this.#kill('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}
