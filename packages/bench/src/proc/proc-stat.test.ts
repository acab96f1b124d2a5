import { describe, expect, it } from 'vitest';
import { parseStatTicks, parseStatusKb, readProcUsage } from './proc-stat.js';

describe('/proc parsing', () => {
  it('reads utime + stime after a command name with spaces and parentheses', () => {
    //          pid comm                 st ppid pgrp sess tty tpgid flags minflt cminflt majflt cmajflt utime stime
    const stat = '4242 (node (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 11 0';
    expect(parseStatTicks(stat)).toBe(325);
  });

  it('names the problem when stat is not what the kernel writes', () => {
    expect(() => parseStatTicks('garbage')).toThrow(/no "\)" closing the command name/);
    expect(() => parseStatTicks('1 (a) S 1')).toThrow(
      /fields 14\/15 \(utime\/stime\) are not numbers/,
    );
  });

  it('reads kB lines of status in bytes', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t11\n';
    expect(parseStatusKb(status, 'VmRSS')).toBe(100 * 1024 * 1024);
    expect(parseStatusKb(status, 'VmHWM')).toBe(200 * 1024 * 1024);
    expect(() => parseStatusKb(status, 'VmSwap')).toThrow(/no "VmSwap: N kB" line/);
  });

  it('reads this very process from /proc', () => {
    const u = readProcUsage(process.pid);
    expect(u.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(u.peakRssBytes).toBeGreaterThanOrEqual(u.rssBytes);
    expect(u.cpuSeconds).toBeGreaterThan(0);
  });
});
