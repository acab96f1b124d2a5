import { describe, expect, it } from 'vitest';
import { countDescendants } from './exec-trace.js';

// Lines as the 6.1 kernel prints them (comm-pid, CPU, flags, timestamp, event).
const trace = [
  '# tracer: nop',
  '         systemd-1       [000] d..1.     5.100000: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=300',
  '  overlay-boot.sh-300     [000] .....     5.110000: sched_process_exec: filename=/usr/local/lib/noderepair/overlay-boot.sh pid=300 old_pid=300',
  '              sh-300     [000] d..1.     5.120000: sched_process_fork: comm=sh pid=300 child_comm=sh child_pid=301',
  '           mkdir-301     [000] .....     5.130000: sched_process_exec: filename=/usr/bin/mkdir pid=301 old_pid=301',
  '         systemd-1       [000] d..1.     5.140000: sched_process_fork: comm=systemd pid=1 child_comm=systemd child_pid=302',
  '         udevadm-302     [000] .....     5.150000: sched_process_exec: filename=/usr/bin/udevadm pid=302 old_pid=302',
  '              sh-300     [000] d..1.     5.160000: sched_process_fork: comm=sh pid=300 child_comm=sh child_pid=303',
  '              sh-303     [000] d..1.     5.170000: sched_process_fork: comm=sh pid=303 child_comm=sh child_pid=304',
  '           mount-304     [000] .....     5.180000: sched_process_exec: filename=/usr/bin/mount pid=304 old_pid=304',
].join('\n');

describe('countDescendants', () => {
  it('counts forks and execs below the root, not the root exec nor other processes', () => {
    expect(countDescendants(trace, 300)).toEqual({ rootSeen: true, forks: 3, execs: 2, commands: ['/usr/bin/mkdir', '/usr/bin/mount'], execAtMs: [30, 80], rootExecAtMs: 10 });
  });

  it('counts nothing for a process that is not in the trace', () => {
    expect(countDescendants(trace, 999)).toEqual({ rootSeen: false, forks: 0, execs: 0, commands: [], execAtMs: [], rootExecAtMs: Number.NaN });
  });
});
