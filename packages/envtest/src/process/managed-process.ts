import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

/**
 * A child process that cannot outlive us.
 *
 * Each component runs in its own process group (detached), so one kill reaches everything it
 * forked. Three layers make sure nothing is left behind:
 *  1. stop() kills the group (TERM, then KILL after a grace period);
 *  2. an 'exit' hook kills every live group synchronously when Node exits normally;
 *  3. a watchdog shell per process blocks reading a pipe from us. When this Node process
 *     dies in any way (even SIGKILL), the kernel closes the pipe, `read` returns and the
 *     watchdog kills the group. That is the only layer that survives a crashed test worker.
 */
export class ManagedProcess {
  /** Label used in log lines and error messages, e.g. `kube-apiserver`. */
  readonly name: string;
  /** File that receives the process's stdout and stderr, appended across restarts. */
  readonly logFile: string;
  private child: ChildProcess | undefined;
  private watchdog: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private code: number | null | undefined;

  constructor(
    name: string,
    private readonly command: string,
    private readonly args: readonly string[],
    logFile: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.name = name;
    this.logFile = logFile;
  }

  /** The OS pid of the current (or last) child, which is also its process group id; undefined before start. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The exit code once the process has exited (null when killed by a signal). */
  get exitCode(): number | null | undefined {
    return this.code;
  }

  /** True from start() until the child has exited. */
  get running(): boolean {
    return this.child !== undefined && this.code === undefined;
  }

  /**
   * Spawns the command in its own process group with its watchdog; may be called again after
   * the process exited (a restart). Throws when it is still running.
   */
  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.log ??= createWriteStream(this.logFile, { flags: 'a' });
    this.log.write(`\n=== ${new Date().toISOString()} start ${this.command} ${this.args.join(' ')}\n`);
    const child = spawn(this.command, this.args, {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: this.env,
    });
    this.child = child;
    this.code = undefined;
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.code = code;
        this.log?.write(`=== ${new Date().toISOString()} exit code=${code} signal=${signal}\n`);
        live.delete(this);
        resolve(code);
      });
      child.once('error', (err) => {
        this.code = -1;
        this.log?.write(`=== spawn error: ${err.message}\n`);
        live.delete(this);
        resolve(-1);
      });
    });
    if (child.pid !== undefined) {
      this.watchdog = spawn(
        '/bin/bash',
        ['-c', 'read _ignored; kill -KILL -- "-$1" 2>/dev/null; exit 0', 'envtest-watchdog', String(child.pid)],
        { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
      );
      this.watchdog.unref();
      (this.watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      live.add(this);
    }
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }

  /** Resolves with the exit code once the process has exited. */
  waitExit(): Promise<number | null> {
    return this.exited;
  }

  /** Sends a signal to the whole process group; does nothing when the process is not running. */
  signal(sig: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    try {
      process.kill(-pid, sig);
    } catch {
      // The group is already gone.
    }
  }

  /**
   * Sends SIGTERM to the group (after SIGCONT, in case it is paused) and SIGKILL after graceMs
   * milliseconds; resolves once the process has exited.
   */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) {
      this.releaseWatchdog();
      return;
    }
    this.signal('SIGCONT'); // a paused process cannot handle TERM
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.releaseWatchdog();
  }

  /** Kills synchronously; for exit hooks. */
  killNow(): void {
    this.signal('SIGKILL');
    this.releaseWatchdog();
  }

  private releaseWatchdog(): void {
    // Closing the pipe lets the watchdog run its kill (a no-op now) and exit.
    this.watchdog?.stdin?.end();
    this.watchdog = undefined;
  }

  /** Closes the log file once the process is done; a later start() opens it again. */
  closeLog(): void {
    const log = this.log;
    if (log === undefined) return;
    // A process's last output can arrive after its 'exit' (its pipes drain later): unpipe
    // before ending the log, or that late chunk is a write after end, an uncaught error.
    this.child?.stdout?.unpipe(log);
    this.child?.stderr?.unpipe(log);
    log.end();
    this.log = undefined;
  }
}

const live = new Set<ManagedProcess>();
process.once('exit', () => {
  for (const p of live) p.killNow();
});

/** Processes started by this module that are still running (for tests and diagnostics). */
export function liveProcesses(): readonly ManagedProcess[] {
  return [...live];
}
