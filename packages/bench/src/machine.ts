// What the figures were measured on, and how busy the machine was (it is shared).
import { cpus, loadavg, release, totalmem } from 'node:os';
import type { MachineInfo } from './report/model.js';

export function machineInfo(loadAtStart: number): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: +(totalmem() / 1024 ** 3).toFixed(1),
    kernel: release(),
    node: process.version,
    loadAverage: { start: +loadAtStart.toFixed(2), end: +(loadavg()[0] ?? 0).toFixed(2) },
  };
}
