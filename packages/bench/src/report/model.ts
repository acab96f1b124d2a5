// The JSON `pnpm bench` writes (and the tables are made from).
import type { CapoResult } from '../capo/figures.js';
import type { ScaleResult } from '../measure/scale-run.js';
import type { OverlayFigures } from '../micro/overlay-figures.js';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  kernel: string;
  node: string;
  /** 1-minute load average at the start and end of the run (other work on the machine). */
  loadAverage: { start: number; end: number };
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  durationSeconds: number;
  mode: 'full' | 'quick' | 'custom';
  machine: MachineInfo;
  versions: { kubernetes?: string; clusterAPI?: string };
  scale: ScaleResult[];
  /** Records of packages/core/bench (bench: informer, informer-summary, workqueue, health-*). */
  informers: Record<string, unknown>[];
  micro: Record<string, unknown>[];
  overlay: OverlayFigures | undefined;
  /** capo-remediation at scale: one record per point (remediations x workload clusters). */
  capo: CapoResult[];
  errors: string[];
}
