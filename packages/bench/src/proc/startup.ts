// Follows a freshly started controller through its initial sync: /proc every 500 ms for
// CPU and memory, its /metrics for "every object reconciled once, queues empty" (see
// metrics/controller-sync.ts). Then, for at most 30 s more, when its CPU settles (a 5 s
// window under 5 % of a core; see settle.ts) — reported when it happens, not waited for.
import { parsePrometheusText } from '../metrics/prometheus-text.js';
import { syncState } from '../metrics/controller-sync.js';
import { readProcUsage } from './proc-stat.js';
import { settledAt, type CpuSample } from './settle.js';

export interface StartupFigures {
  /**
   * False when the initial sync was not done within the limit (`onTimeout: 'report'`): then
   * cpuSeconds and syncedMs are what was spent until the limit, a lower bound.
   */
  completed: boolean;
  /** CPU seconds from exec until every object was reconciled once and the queues were empty. */
  cpuSeconds: number;
  syncedMs: number;
  rssBytesAtSync: number;
  /** When the CPU settled afterwards (5 s under 5 % of a core), if within 30 s. */
  settledMs?: number;
  settledCpuSeconds?: number;
}

export const SETTLE_WINDOW_MS = 5_000;
export const SETTLE_MAX_FRACTION = 0.05;

async function metricsText(url: string): Promise<string | undefined> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return r.ok ? await r.text() : undefined;
  } catch {
    return undefined;
  }
}

export async function followStartup(o: {
  pid: () => number;
  startedAt: number;
  alive: () => boolean;
  metricsUrl: string;
  controller: string;
  objects: number;
  timeoutMs: number;
  what: string;
  /** At the limit: fail (default), or report the figures so far as not completed. */
  onTimeout?: 'throw' | 'report';
}): Promise<StartupFigures> {
  const samples: CpuSample[] = [];
  let synced: { tMs: number; cpu: number; rss: number } | undefined;
  for (;;) {
    if (!o.alive()) throw new Error(`${o.what} exited during its initial sync`);
    const u = readProcUsage(o.pid());
    const tMs = Date.now() - o.startedAt;
    samples.push({ tMs, cpuSeconds: u.cpuSeconds });
    if (!synced) {
      const text = await metricsText(o.metricsUrl);
      if (text && syncState(parsePrometheusText(text), o.controller, o.objects).done)
        synced = { tMs, cpu: u.cpuSeconds, rss: u.rssBytes };
      else if (tMs > o.timeoutMs && o.onTimeout === 'report')
        return {
          completed: false,
          cpuSeconds: +u.cpuSeconds.toFixed(2),
          syncedMs: tMs,
          rssBytesAtSync: u.rssBytes,
        };
      else if (tMs > o.timeoutMs)
        throw new Error(
          `${o.what} did not finish its initial sync within ${o.timeoutMs} ms (CPU ${u.cpuSeconds.toFixed(1)} s)`,
        );
    }
    if (synced) {
      const s = settledAt(samples, SETTLE_WINDOW_MS, SETTLE_MAX_FRACTION);
      if (s || tMs - synced.tMs > 30_000) {
        return {
          completed: true,
          cpuSeconds: +synced.cpu.toFixed(2),
          syncedMs: synced.tMs,
          rssBytesAtSync: synced.rss,
          ...(s ? { settledMs: s.tMs, settledCpuSeconds: +s.cpuSeconds.toFixed(2) } : {}),
        };
      }
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
