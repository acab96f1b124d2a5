export type { GeneratedFile, Bundle } from './bundle.js';
export { generate } from './bundle.js';
export { bootScript, boundPaths } from './boot-script.js';
export { overlayUnit, machineIdCommitDropIn } from './overlay-unit.js';
export { healthMonitorScript, healthMonitorUnit, restartDropInContent } from './health-monitor.js';
export { shQuote } from './shell.js';
export {
  LIB_DIR,
  UNIT_DIR,
  OVERLAY_UNIT,
  OVERLAY_SCRIPT,
  DISABLE_CMDLINE,
  monitorUnit,
  monitorScript,
  restartDropIn,
} from './layout.js';
