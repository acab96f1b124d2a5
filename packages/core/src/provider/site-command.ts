// The Command site step: runs the site's program for a repair and turns how it ended into a
// provider outcome. No shell (argv as the policy gives it, so a node name can never become
// shell syntax), stdin closed, stdout and stderr kept bounded. The program runs in its own
// process group, so a timeout stops what it started too (a script's `sleep`, `ssh`, `curl`),
// not only the script.
//
// Exit statuses (documented in docs/tools/policy-fields.ts):
//   0   the site's automation accepted the job: the step waits for the node, as after a reboot;
//   75  EX_TEMPFAIL (sysexits.h): "could not do it now, nothing was done": the repair waits
//       and asks again, no attempt is used (like a cloud outage);
//   any other status, a signal, the commandTimeout, or a program that cannot be started:
//       the attempt failed and the ladder goes on.
import { spawn } from 'node:child_process';
import { formatDuration } from '../health/time.js';
import type { ProviderOutcome } from './port.js';
import { TailBuffer, tailExcerpt } from './site-text.js';

/**
 * What a Command step's program gets of the controller's environment without being asked:
 * where programs are, a home, the locale and the time zone. Nothing else: the controller's
 * cloud credentials (OS_*, OS_CLIENT_CONFIG_FILE, AWS_*), its KUBECONFIG and tokens are not
 * the site program's to use. A step's `env` names more to pass through.
 */
export const CommandBaseEnv: readonly string[] = ['PATH', 'HOME', 'LANG', 'TZ'];

/** A variable the program always gets if the controller has it: CommandBaseEnv, or LC_*. */
function isBaseVariable(name: string): boolean {
  return CommandBaseEnv.includes(name) || name.startsWith('LC_');
}

/**
 * The environment a Command step's program runs with: the base variables the controller has,
 * the ones the step's `env` names (passed through when the controller has them), and ours
 * (NODEREPAIR_*), which win over anything passed through. Pure.
 */
export function commandEnvironment(
  controller: Readonly<Record<string, string | undefined>>,
  passThrough: readonly string[],
  ours: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(controller))
    if (v !== undefined && (isBaseVariable(k) || passThrough.includes(k))) out[k] = v;
  return { ...out, ...ours };
}

/** sysexits.h EX_TEMPFAIL: the program could not act now and did nothing. */
export const ExitTempFail = 75;
/** Output kept per stream; messages show only the tail of stderr. */
const KEEP_BYTES = 16 * 1024;
/** After the program exits, how long its output may still arrive (from children it left). */
const STDIO_DRAIN_MS = 1000;

export interface SiteCommandRun {
  readonly argv: readonly string[];
  /** The program's whole environment (commandEnvironment): nothing else is inherited. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  /** After SIGTERM on timeout, how long before SIGKILL (an abort kills at once). */
  readonly killGraceMs: number;
  /** The controller stopping or its lease lost: the process group is killed at once (SIGKILL). */
  readonly signal: AbortSignal;
}

/** How the program ended (the I/O half; commandOutcome is the decision). */
export type SiteCommandEnd =
  | { readonly kind: 'NotStarted'; readonly code: string }
  | {
      readonly kind: 'Ended';
      /** Exit status, or null when a signal ended it. */
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** It was still running at the commandTimeout and was stopped. */
      readonly timedOut: boolean;
      /** The controller stopped while it ran, and it was stopped. */
      readonly aborted: boolean;
      /** SIGKILL was sent while it still ran: after the timeout's grace, or at once on abort. */
      readonly killed: boolean;
      readonly stdout: string;
      readonly stderr: string;
    };

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Runs the program once and reports how it ended. Never throws. */
export function runSiteCommand(run: SiteCommandRun): Promise<SiteCommandEnd> {
  return new Promise((resolve) => {
    const [file, ...args] = run.argv;
    if (file === undefined) {
      resolve({ kind: 'NotStarted', code: 'EMPTY' });
      return;
    }
    if (run.signal.aborted) {
      resolve({ kind: 'NotStarted', code: 'ABORTED' });
      return;
    }
    const stdout = new TailBuffer(KEEP_BYTES);
    const stderr = new TailBuffer(KEEP_BYTES);
    const child = spawn(file, args, {
      env: { ...run.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      windowsHide: true,
    });
    let timedOut = false;
    let aborted = false;
    let killed = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      // Left running on purpose after the program exits: its children may outlive SIGTERM.
      graceTimer ??= setTimeout(() => {
        if (exited === undefined) killed = true;
        killGroup(child.pid, 'SIGKILL');
      }, run.killGraceMs);
      graceTimer.unref();
    };
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      stop();
    }, run.timeoutMs);
    // An abort is the lease lost or the controller stopping: kill the whole group at once, no
    // SIGTERM grace. Why no grace is safe and a grace is not: after a lost lease the term's
    // signal aborts at renewDeadline, and a successor may hold the lease leaseDuration after
    // our last renewal (runtime/leader: 15 s and 10 s by default, a 5 s margin, and only
    // leaseDuration > renewDeadline is required, so the margin may be far shorter). The
    // manager then waits at most until that lease expiry for in-flight work and exits the
    // process (manager.ts stopBeforeTakeover); a detached group outlives that exit, and a
    // grace timer in a process that exited never fires. On a graceful stop the manager
    // releases the lease, so a successor may act at once. Either way the successor replays
    // the step (NODEREPAIR_REPLAY=1): this run must not still be acting when it does.
    const onAbort = () => {
      aborted = true;
      if (exited === undefined) killed = true;
      killGroup(child.pid, 'SIGKILL');
    };
    run.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (end: SiteCommandEnd) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      if (drainTimer !== undefined) clearTimeout(drainTimer);
      run.signal.removeEventListener('abort', onAbort);
      resolve(end);
    };
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Only before the start (ENOENT, EACCES): a kill of a gone group is caught above.
      if (exited === undefined && child.pid === undefined)
        finish({ kind: 'NotStarted', code: e.code ?? 'ERROR' });
    });
    const ended = (): SiteCommandEnd => ({
      kind: 'Ended',
      code: exited?.code ?? null,
      signal: exited?.signal ?? null,
      timedOut,
      aborted,
      killed,
      stdout: stdout.text(),
      stderr: stderr.text(),
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // A child the program left behind may hold the pipes open: do not wait for it.
      drainTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(ended());
      }, STDIO_DRAIN_MS);
      drainTimer.unref();
    });
    child.on('close', () => {
      if (exited !== undefined) finish(ended());
    });
  });
}

/** What the repair makes of how the program ended. Pure. */
export function commandOutcome(
  program: string,
  end: SiteCommandEnd,
  timeoutMs: number,
  secrets: readonly string[],
): ProviderOutcome {
  if (end.kind === 'NotStarted') {
    if (end.code === 'ABORTED')
      return {
        kind: 'Unavailable',
        message: `${program} not started: the controller is stopping`,
        maybeSent: false,
      };
    return { kind: 'Rejected', message: `cannot start ${program}: ${end.code}` };
  }
  const err = tailExcerpt(end.stderr, secrets);
  const withErr = (s: string) => (err === '' ? s : `${s}: ${err}`);
  if (end.aborted)
    // The controller stops (shutdown, lost lease): the next leader re-runs it as a replay.
    return {
      kind: 'Unavailable',
      message: withErr(
        `${program} stopped because the controller is stopping${end.killed ? ' (its process group killed with SIGKILL)' : ''}`,
      ),
      maybeSent: true,
    };
  if (end.timedOut)
    return {
      kind: 'Rejected',
      message: withErr(
        `${program} did not finish within ${formatDuration(timeoutMs)}: stopped with SIGTERM${end.killed ? ', then SIGKILL' : ''}`,
      ),
    };
  if (end.code === 0) return { kind: 'Accepted', message: `${program} exited 0` };
  if (end.code === ExitTempFail)
    return {
      kind: 'Unavailable',
      message: withErr(`${program} exited ${ExitTempFail} (EX_TEMPFAIL: try again later)`),
      maybeSent: false,
    };
  if (end.code === null)
    return { kind: 'Rejected', message: withErr(`${program} was killed by ${end.signal ?? '?'}`) };
  return { kind: 'Rejected', message: withErr(`${program} exited ${end.code}`) };
}
