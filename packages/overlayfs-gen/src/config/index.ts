export type {
  OverlayConfig,
  HealthMonitor,
  HealthCheck,
  RestartBudget,
  Backoff as RestartBackoff,
  ContainerRuntime,
} from './types.js';
export type { ConfigError } from './errors.js';
export type { DefaultMonitor } from './defaults.js';
export { formatConfigError } from './errors.js';
export { RawConfig } from './codec.js';
export { resolveConfig } from './validate.js';
export { parseConfig, decodeConfig } from './load.js';
export {
  checkNodePath,
  checkPathSyntax,
  checkStateDir,
  isWithin,
  FORBIDDEN_ROOTS,
} from './paths.js';
export {
  DEFAULT_VOLATILE,
  DEFAULT_PERSISTENT,
  DEFAULT_TMPFS_SIZE,
  DEFAULT_STATE_DIR,
  DEFAULT_CONTAINER_RUNTIME,
  DEFAULT_MONITOR_SETTINGS,
  DEFAULT_KUBELET_HEALTHZ,
  defaultHealthMonitors,
} from './defaults.js';
