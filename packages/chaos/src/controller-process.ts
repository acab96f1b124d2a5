// A controller as the real process a Deployment would run (node + tsx on the TypeScript
// entry point), with every stdout/stderr line kept for the secret scan and exit bookkeeping:
// an exit we did not cause (no SIGKILL/SIGSTOP/SIGTERM from the test) counts as a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const capoControllerMain = join(
  repoRoot,
  'packages',
  'capo-remediation',
  'src',
  'controller',
  'main.ts',
);
export const noderepairCliMain = join(repoRoot, 'packages', 'core', 'src', 'cli', 'noderepair.ts');
/** `--provider-module` for `noderepair run` processes that need real cordon and drain (see the file). */
export const fakeRecordingProviderModule = join(
  repoRoot,
  'packages',
  'chaos',
  'src',
  'fake-recording-provider.ts',
);

export interface ProcessOptions {
  /** A name for the log prefix (e.g. "capo-0"). */
  readonly name: string;
  readonly entry: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  /** Every output line is appended here too (the suite's secret scan reads it). */
  readonly logFile: string;
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export class ControllerProcess {
  readonly lines: string[] = [];
  /** The /healthz port, when the caller gave the process one. */
  probePort: number | undefined;
  readonly exited: Promise<Exit>;
  #child: ChildProcess;
  #signalled = false;
  #exit: Exit | undefined;

  private constructor(readonly opts: ProcessOptions) {
    this.#child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', opts.entry, ...opts.args],
      {
        cwd: dirname(opts.entry),
        env: { ...process.env, LOG_LEVEL: 'debug', ...opts.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const onData = (stream: string) => {
      let partial = '';
      return (b: Buffer) => {
        const parts = (partial + b.toString('utf8')).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) {
          if (line === '') continue;
          this.lines.push(line);
          appendFileSync(opts.logFile, `${opts.name} ${stream} ${line}\n`);
        }
      };
    };
    this.#child.stdout?.on('data', onData('out'));
    this.#child.stderr?.on('data', onData('err'));
    this.exited = new Promise((resolve) =>
      this.#child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      }),
    );
  }

  static start(opts: ProcessOptions): ControllerProcess {
    return new ControllerProcess(opts);
  }

  /** True when /healthz answers 200 (the process is up, leading or not). */
  async healthy(): Promise<boolean> {
    if (this.probePort === undefined) return false;
    try {
      return (await fetch(`http://127.0.0.1:${this.probePort}/healthz`)).status === 200;
    } catch {
      return false;
    }
  }

  get pid(): number {
    return this.#child.pid as number;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Sends a signal on the test's behalf (so the exit is not counted as a crash). */
  signal(sig: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT' | 'SIGTERM'): void {
    if (!this.running) return;
    if (sig !== 'SIGCONT') this.#signalled = true;
    this.#child.kill(sig);
  }

  async kill(): Promise<Exit> {
    this.signal('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, and SIGKILL if it does not stop within `graceMs`. */
  async stop(graceMs = 15_000): Promise<Exit> {
    if (!this.running) return this.exited;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const t = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(t);
    }
  }

  /** True when the process exited by itself with a non-zero code (not by a test's signal). */
  get crashed(): boolean {
    const e = this.#exit;
    if (e === undefined) return false;
    if (this.#signalled) return false;
    return e.code !== 0;
  }

  /** True when the process ended by itself (exit code 0 or not) without the test asking. */
  get exitedOnItsOwn(): boolean {
    return this.#exit !== undefined && !this.#signalled;
  }

  /** Output lines that look like an unhandled error (stack traces of uncaught exceptions). */
  get unhandled(): string[] {
    return this.lines.filter((l) =>
      /Unhandled(Promise)?Rejection|uncaughtException|^\s+at .*\(node:internal/.test(l),
    );
  }
}
