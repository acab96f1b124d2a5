// Follows a freshly started process until its initial sync is over (see settle.ts):
// samples /proc every 250 ms; optionally also notes when its own readiness probe passes.
import { readProcUsage } from './proc-stat.js';
import { settledAt, type CpuSample } from './settle.js';

export interface StartupFigures {
  /** CPU seconds from exec to the start of the first quiet window. */
  cpuSeconds: number;
  /** Wall time from exec to the same point. */
  settledMs: number;
  /** When the process's readiness probe first passed (if it has one). */
  readyMs?: number;
  readyCpuSeconds?: number;
  rssBytesAtSettle: number;
}

export const SETTLE_WINDOW_MS = 5_000;
/** 5 % of one core: heartbeats keep both controllers slightly busy in steady state. */
export const SETTLE_MAX_FRACTION = 0.05;

export async function followStartup(o: {
  pid: () => number;
  startedAt: number;
  alive: () => boolean;
  ready?: () => Promise<boolean>;
  timeoutMs: number;
  what: string;
}): Promise<StartupFigures> {
  const samples: CpuSample[] = [];
  const rss = new Map<number, number>();
  let readyMs: number | undefined;
  let readyCpu: number | undefined;
  for (;;) {
    if (!o.alive()) throw new Error(`${o.what} exited during its initial sync`);
    const u = readProcUsage(o.pid());
    const tMs = Date.now() - o.startedAt;
    samples.push({ tMs, cpuSeconds: u.cpuSeconds });
    rss.set(tMs, u.rssBytes);
    if (o.ready && readyMs === undefined && (await o.ready())) {
      readyMs = tMs;
      readyCpu = u.cpuSeconds;
    }
    const s = settledAt(samples, SETTLE_WINDOW_MS, SETTLE_MAX_FRACTION);
    if (s && (!o.ready || readyMs !== undefined)) {
      return {
        cpuSeconds: +s.cpuSeconds.toFixed(2),
        settledMs: s.tMs,
        ...(readyMs !== undefined ? { readyMs, readyCpuSeconds: +(readyCpu ?? 0).toFixed(2) } : {}),
        rssBytesAtSettle: rss.get(s.tMs) ?? u.rssBytes,
      };
    }
    if (tMs > o.timeoutMs)
      throw new Error(
        `${o.what} did not settle within ${o.timeoutMs} ms (CPU ${u.cpuSeconds.toFixed(1)} s)`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}
