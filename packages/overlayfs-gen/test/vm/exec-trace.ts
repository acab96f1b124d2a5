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
}

const FORK = /sched_process_fork: .*?\bpid=(\d+) .*\bchild_pid=(\d+)/;
const EXEC = /sched_process_exec: filename=(\S+) pid=(\d+)/;

/** Forks and execs in the process tree below `rootPid` (the root's own execs not counted). */
export function countDescendants(trace: string, rootPid: number): ProcessCounts {
  const tree = new Set([rootPid]);
  let rootSeen = false;
  let forks = 0;
  const commands: string[] = [];
  for (const line of trace.split('\n')) {
    const f = FORK.exec(line);
    if (f) {
      if (Number(f[2]) === rootPid) rootSeen = true;
      if (tree.has(Number(f[1]))) {
        tree.add(Number(f[2]));
        forks++;
      }
      continue;
    }
    const e = EXEC.exec(line);
    if (e && Number(e[2]) !== rootPid && tree.has(Number(e[2]))) commands.push(e[1] ?? '');
  }
  return { rootSeen, forks, execs: commands.length, commands };
}
