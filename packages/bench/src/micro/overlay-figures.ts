// The boot-time cost of the overlay step comes from packages/overlayfs-gen's VM test
// (test/vm/boot.vm.test.ts), which prints one JSON line {"benchmark":"overlayfs-gen/vm",...}
// after booting a Debian VM under qemu TCG twice. Booting a VM takes tens of minutes on this
// machine, so `pnpm bench` does NOT boot one: it reads the latest recorded line, from
// BENCH_OVERLAY_LOG (any log of a `test:vm` run) or from packages/bench/recorded/.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseJsonLines, withField } from './json-lines.js';

export const RECORDED_OVERLAY = fileURLToPath(
  new URL('../../recorded/overlayfs-gen-vm.log', import.meta.url),
);

export interface OverlayFigures {
  source: string;
  recordedAt: string;
  overlayUnitMs?: number;
  userspaceMsWithoutOverlay?: number;
  userspaceMsWithOverlay?: number;
  /** overlayUnitMs as a percentage of userspaceMsWithOverlay. */
  overlaySharePct?: number;
  /** execve calls below the script's process, counted from the guest kernel's trace. */
  overlayExecs?: number;
  /** CPU the overlay unit's cgroup used (the script and its commands), ms. */
  overlayCpuMs?: number;
  [k: string]: unknown;
}

/** The last overlayfs-gen/vm line in a log (pure); undefined when there is none. */
export function lastOverlayLine(text: string): Record<string, unknown> | undefined {
  const lines = withField(parseJsonLines(text).records, 'benchmark', 'overlayfs-gen/vm');
  return lines[lines.length - 1];
}

export function readOverlayFigures(): OverlayFigures | undefined {
  for (const file of [process.env['BENCH_OVERLAY_LOG'], RECORDED_OVERLAY]) {
    if (!file || !existsSync(file)) continue;
    const line = lastOverlayLine(readFileSync(file, 'utf8'));
    if (!line) continue;
    const { benchmark: _b, ...figures } = line;
    return { source: file, recordedAt: statSync(file).mtime.toISOString(), ...figures };
  }
  return undefined;
}
