// One way to run the build's host commands (gcc, tar, go, chroot): synchronously, with a
// time limit, and an error that names the command and ends with its output.
import { spawnSync } from 'node:child_process';

export interface RunOptions {
  readonly cwd?: string;
  /** Added to this process's environment. */
  readonly env?: Record<string, string>;
  /** Default 10 minutes. */
  readonly timeoutMs?: number;
}

/** Runs `cmd args`; throws when it cannot start, times out or exits non-zero. */
export function runSync(cmd: string, args: readonly string[], opts: RunOptions = {}): void {
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 10 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error || r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stdout ?? '').slice(-2000)}\n${(r.stderr ?? '').slice(-2000)}`,
    );
}
