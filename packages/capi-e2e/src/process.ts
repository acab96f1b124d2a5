import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

const live = new Set<ChildProcessGroup>();
process.once('exit', () => {
  for (const p of live) p.killNow();
});

/**
 * A child process in its own process group that cannot outlive this Node process: stop()
 * sends TERM then KILL, an exit hook kills it synchronously, and a watchdog shell blocked
 * on a pipe from us kills the group when we die in any way (even SIGKILL).
 */
export class ChildProcessGroup {
  private child: ChildProcess | undefined;
  private watchdog: ChildProcess | undefined;
  private log: WriteStream | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);
  private code: number | null | undefined;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: readonly string[],
    readonly logFile: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.code === undefined;
  }

  /** undefined while running (or never started). */
  get exitCode(): number | null | undefined {
    return this.code;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    this.log ??= createWriteStream(this.logFile, { flags: 'a' });
    this.log.write(`=== ${new Date().toISOString()} start ${this.command} ${this.args.join(' ')}\n`);
    const child = spawn(this.command, this.args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: this.env });
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
      this.watchdog = spawn('/bin/bash', ['-c', 'read _x; kill -KILL -- "-$1" 2>/dev/null; exit 0', 'capi-e2e-watchdog', String(child.pid)], {
        detached: true,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      this.watchdog.unref();
      (this.watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      live.add(this);
    }
    child.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }

  waitExit(): Promise<number | null> {
    return this.exited;
  }

  private signal(sig: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined || !this.running) return;
    try {
      process.kill(-pid, sig);
    } catch {
      // The group is already gone.
    }
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.running) {
      this.signal('SIGTERM');
      const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.releaseWatchdog();
    await new Promise<void>((r) => (this.log ? this.log.end(r) : r()));
    this.log = undefined;
  }

  killNow(): void {
    this.signal('SIGKILL');
    this.releaseWatchdog();
  }

  private releaseWatchdog(): void {
    // Closing the pipe lets the watchdog run its (now no-op) kill and exit.
    this.watchdog?.stdin?.end();
    this.watchdog = undefined;
  }
}
