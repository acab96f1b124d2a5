// Resident memory and CPU time of a process from Linux /proc, the same numbers `ps` and
// `top` show: VmRSS / VmHWM (peak) from /proc/PID/status, utime + stime from /proc/PID/stat.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcUsage {
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakRssBytes: number;
  /** User + system CPU time consumed so far. */
  cpuSeconds: number;
}

/** Fields 14 and 15 (utime, stime) of /proc/PID/stat, in clock ticks. Pure. */
export function parseStatTicks(stat: string): number {
  // The command name (field 2) is in parentheses and may contain spaces or ')': split after
  // the LAST ')'. What follows starts at field 3 (state).
  const close = stat.lastIndexOf(')');
  if (close < 0)
    throw new Error(`/proc stat: no ")" closing the command name in: ${stat.slice(0, 80)}`);
  const fields = stat
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const utime = Number(fields[14 - 3]);
  const stime = Number(fields[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(
      `/proc stat: fields 14/15 (utime/stime) are not numbers in: ${stat.slice(0, 120)}`,
    );
  return utime + stime;
}

/** A "Key:   123 kB" line of /proc/PID/status, in bytes. Pure. */
export function parseStatusKb(status: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
  if (!m) throw new Error(`/proc status: no "${key}: N kB" line`);
  return Number(m[1]) * 1024;
}

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond =
        Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100; // USER_HZ on every Linux architecture Node supports
    }
  }
  return ticksPerSecond;
}

export function readProcUsage(pid: number): ProcUsage {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  // A zombie (exited, not yet reaped) has no memory lines left.
  if (!/^VmRSS:/m.test(status)) throw new Error(`process ${pid} has exited`);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return {
    rssBytes: parseStatusKb(status, 'VmRSS'),
    peakRssBytes: parseStatusKb(status, 'VmHWM'),
    cpuSeconds: parseStatTicks(stat) / clockTicks(),
  };
}
