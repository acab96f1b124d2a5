// The generator: a validated config in, the files to install and the commands to run after
// them out. Pure: no I/O, same input gives the same output byte for byte.
import type { OverlayConfig } from '../config/index.js';
import { bootScript, boundPaths } from './boot-script.js';
import { healthMonitorScript, healthMonitorUnit, restartDropInContent } from './health-monitor.js';
import { OVERLAY_SCRIPT, OVERLAY_UNIT, UNIT_DIR, monitorScript, monitorUnit, restartDropIn } from './layout.js';
import { machineIdCommitDropIn, overlayUnit } from './overlay-unit.js';

/** One file to install on the node. */
export interface GeneratedFile {
  /** Absolute path on the node. */
  readonly path: string;
  /** Permission bits, e.g. 0o755. */
  readonly mode: number;
  /** The file's text, exactly as it must be written. */
  readonly content: string;
}

/** Everything generate() produces for one config: files to write, then commands to run once. */
export interface Bundle {
  /**
   * The boot script and its unit, the machine-id drop-in when needed, and per monitor its script,
   * unit and the watched unit's Restart= drop-in.
   */
  readonly files: readonly GeneratedFile[];
  /**
   * Shell commands to run once after the files are written (cloud-init runcmd, Cluster API
   * postKubeadmCommands). The overlay is enabled, not started: it takes effect at the next
   * boot, so everything kubeadm wrote on this first boot is already on the disk below it.
   */
  readonly commands: readonly string[];
}

/**
 * Turns a validated config into the files and first-boot commands; pure and deterministic (same
 * config, same bytes). The overlay takes effect at the next boot.
 */
export function generate(config: OverlayConfig): Bundle {
  const files: GeneratedFile[] = [
    { path: OVERLAY_SCRIPT, mode: 0o755, content: bootScript(config) },
    { path: `${UNIT_DIR}/${OVERLAY_UNIT}`, mode: 0o644, content: overlayUnit(config) },
  ];
  if (boundPaths(config).includes('/etc/machine-id')) {
    files.push({ path: `${UNIT_DIR}/systemd-machine-id-commit.service.d/50-noderepair-overlay.conf`, mode: 0o644, content: machineIdCommitDropIn(config) });
  }
  for (const m of config.healthMonitors) {
    files.push(
      { path: monitorScript(m.name), mode: 0o755, content: healthMonitorScript(m) },
      { path: `${UNIT_DIR}/${monitorUnit(m.name)}`, mode: 0o644, content: healthMonitorUnit(m) },
      { path: restartDropIn(m.unit), mode: 0o644, content: restartDropInContent(m) },
    );
  }
  const commands = ['systemctl daemon-reload', `systemctl enable ${OVERLAY_UNIT}`];
  if (config.healthMonitors.length > 0) {
    commands.push(`systemctl enable --now ${config.healthMonitors.map((m) => monitorUnit(m.name)).join(' ')}`);
  }
  return { files, commands };
}
