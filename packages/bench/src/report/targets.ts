// The targets, checked against measured figures (pure). A target is reported as
// met / missed with the margin; nothing here fails the run.
import type { CapoResult } from '../capo/figures.js';
import type { ScaleResult } from '../measure/scale-run.js';
import type { OverlayFigures } from '../micro/overlay-figures.js';
import { fmtMiB, MiB } from './format.js';

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean | undefined;
  /** How far off, when missed. */
  miss?: string;
}

export const REMEDIATION_P99_TARGET_MS = 50;
export const BYTES_PER_NODE_TARGET = 1024;

export function remediationTarget(r: ScaleResult | undefined): TargetCheck {
  const p99 = r?.ours.remediation.p99;
  const base = `remediation created within ${REMEDIATION_P99_TARGET_MS} ms (p99) of the deadline at 10,000 nodes`;
  if (!r || p99 === undefined || r.ours.remediation.missing > 0)
    return {
      target: base,
      measured: r
        ? `${r.ours.remediation.missing} of ${r.ours.remediation.expected} never seen`
        : 'not run',
      met: r ? false : undefined,
    };
  const met = p99 <= REMEDIATION_P99_TARGET_MS;
  // The floor: the requests alone that starting the members needs, with nothing else running.
  const f = r.admissionFloor;
  const floor = f ? `; the requests alone: ${f.dryRunMs} ms (a real run's: ${f.realRunMs} ms)` : '';
  return {
    target: base,
    measured: `p99 ${p99} ms at ${r.nodes.toLocaleString('en-US')} nodes${floor}`,
    met,
    ...(met ? {} : { miss: `${p99 - REMEDIATION_P99_TARGET_MS} ms over` }),
  };
}

export function bytesPerNodeTarget(impl: string, bytes: number | undefined): TargetCheck {
  const target = `at most 1 KiB retained per Node (${impl})`;
  if (bytes === undefined) return { target, measured: 'not run', met: undefined };
  const met = bytes <= BYTES_PER_NODE_TARGET;
  return {
    target,
    measured: `${bytes} B/node`,
    met,
    ...(met
      ? {}
      : {
          miss: `${(bytes / BYTES_PER_NODE_TARGET).toFixed(1)}× the budget (${bytes - BYTES_PER_NODE_TARGET} B over)`,
        }),
  };
}

/** Ours below the Cluster API manager's (memory in bytes), with the margin when above. */
function belowClusterApi(target: string, ours: number, capi: number): TargetCheck {
  const met = ours < capi;
  return {
    target,
    measured: `${fmtMiB(ours)} vs ${fmtMiB(capi)}`,
    met,
    ...(met ? {} : { miss: `${fmtMiB(ours - capi)} above` }),
  };
}

export function rssTarget(r: ScaleResult): TargetCheck {
  return belowClusterApi(
    `resident memory below the Cluster API manager's (${r.nodes.toLocaleString('en-US')} nodes)`,
    r.ours.rssBytes,
    r.capi.rssBytes,
  );
}

/**
 * "No steady-state request per node beyond the watch": anything per node (a periodic GET or
 * resync of each Node) would be at least N / 5 requests a minute at a 5-minute period; so
 * the bar is under one request a minute per 1,000 nodes.
 */
export function steadyRequestsTarget(r: ScaleResult): TargetCheck {
  const perMin = r.ours.requestsPerMinute;
  const bar = r.nodes / 1000;
  const met = perMin < Math.max(1, bar);
  return {
    target: `no steady-state request per node (${r.nodes.toLocaleString('en-US')} nodes: < ${Math.max(1, bar)}/min)`,
    measured: `${perMin}/min`,
    met,
    ...(met ? {} : { miss: `${(perMin - Math.max(1, bar)).toFixed(1)}/min over` }),
  };
}

export const STEADY_RSS_TARGET_BYTES = 80 * MiB;
export const OVERLAY_SHARE_TARGET_PCT = 5;

/**
 * Issue 24: steady RSS under 80 MiB at 1,000 nodes. Steady is sampled after the sync; V8
 * shrinks its heap 30 s to 2 min after it, so one run can meet this and the next miss it.
 */
export function steadyRssTarget(r: ScaleResult | undefined): TargetCheck {
  const target = 'steady resident memory under 80 MiB at 1,000 nodes';
  if (r === undefined) return { target, measured: 'not run', met: undefined };
  const met = r.ours.rssBytes < STEADY_RSS_TARGET_BYTES;
  return {
    target,
    measured: fmtMiB(r.ours.rssBytes),
    met,
    ...(met ? {} : { miss: `${fmtMiB(r.ours.rssBytes - STEADY_RSS_TARGET_BYTES)} over` }),
  };
}

/** Issue 24: peak RSS below the Cluster API manager's, on the standalone path (one size). */
export function peakRssTarget(r: ScaleResult): TargetCheck {
  return belowClusterApi(
    `peak resident memory below the Cluster API manager's (${r.nodes.toLocaleString('en-US')} nodes)`,
    r.ours.peakRssBytes,
    r.capi.peakRssBytes,
  );
}

/** Issue 24: peak RSS below the Cluster API manager's, on the capo-remediation path (one point). */
export function capoPeakRssTarget(r: CapoResult): TargetCheck {
  return belowClusterApi(
    `capo-remediation peak resident memory below the Cluster API manager's (${r.remediations} × ${r.clusters})`,
    r.rss.capo.peakRssBytes,
    r.rss.capi.peakRssBytes,
  );
}

/** Issue 24: the overlay step under 5 % of the userspace boot, in the recorded VM run. */
export function overlayShareTarget(o: OverlayFigures | undefined): TargetCheck {
  const target = `overlay step under ${OVERLAY_SHARE_TARGET_PCT} % of the userspace boot (same VM run)`;
  const pct = o?.overlaySharePct;
  if (pct === undefined) return { target, measured: 'not recorded', met: undefined };
  const met = pct < OVERLAY_SHARE_TARGET_PCT;
  const execs = o?.overlayExecs !== undefined ? `, ${o.overlayExecs} execs` : '';
  return {
    target,
    measured: `${pct.toFixed(1)} %${execs}`,
    met,
    ...(met ? {} : { miss: `${(pct - OVERLAY_SHARE_TARGET_PCT).toFixed(1)} points over` }),
  };
}
