// Counts the processes a unit's main process started, from the kernel's own record: the VM
// boots with the sched_process_fork and sched_process_exec trace events on (trace_event= on
// the kernel command line), so every fork and exec of the boot is in /sys/kernel/tracing/trace
// whatever the script does (builtins, subshells, external commands). Pure: text in, counts out.

export interface ProcessCounts {
  /** The fork that created the root is in the trace: nothing of its tree was overwritten. */
  readonly rootSeen: boolean;
  /** Processes forked by the root process or its descendants (subshells included). */
  readonly forks: number;
  /** execve calls by the descendants: the external commands started. */
  readonly execs: number;
  /** What was executed, in order (paths). */
  readonly commands: readonly string[];
  /**
   * When each command was executed, in ms after the fork that created the root (NaN when that
   * fork is not in the trace): the gaps show where the unit's time goes. Printed, never asserted.
   */
  readonly execAtMs: readonly number[];
  /** When the root itself executed its program (the script), in ms after its fork; NaN if unseen. */
  readonly rootExecAtMs: number;
}

const FORK = /sched_process_fork: .*?\bpid=(\d+) .*\bchild_pid=(\d+)/;
const EXEC = /sched_process_exec: filename=(\S+) pid=(\d+)/;
const TIME = /\s(\d+\.\d+): sched_process_/;

const secondsOf = (line: string): number => Number(TIME.exec(line)?.[1] ?? Number.NaN);

/** Forks and execs in the process tree below `rootPid` (the root's own execs not counted). */
export function countDescendants(trace: string, rootPid: number): ProcessCounts {
  const tree = new Set([rootPid]);
  let rootSeen = false;
  let forks = 0;
  let rootForkS = Number.NaN;
  const commands: string[] = [];
  const execAtMs: number[] = [];
  let rootExecAtMs = Number.NaN;
  for (const line of trace.split('\n')) {
    const f = FORK.exec(line);
    if (f) {
      if (Number(f[2]) === rootPid) {
        rootSeen = true;
        rootForkS = secondsOf(line);
      }
      if (tree.has(Number(f[1]))) {
        tree.add(Number(f[2]));
        forks++;
      }
      continue;
    }
    const e = EXEC.exec(line);
    if (e && Number(e[2]) === rootPid)
      rootExecAtMs = Math.round((secondsOf(line) - rootForkS) * 1000);
    if (e && Number(e[2]) !== rootPid && tree.has(Number(e[2]))) {
      commands.push(e[1] ?? '');
      execAtMs.push(Math.round((secondsOf(line) - rootForkS) * 1000));
    }
  }
  return { rootSeen, forks, execs: commands.length, commands, execAtMs, rootExecAtMs };
}
