// cli/: the noderepair command line and its simulator (also usable as a library).
export { runCli, type CliIo } from './noderepair.js';
export {
  simulate,
  formatDecisionText,
  type SimulatedDecision,
  type SimulateOptions,
} from './simulate.js';
export {
  parseTrace,
  resultAt,
  TraceLine,
  type ParsedTrace,
  type TraceActionResult,
} from './trace.js';
export {
  runCommand,
  parseRunArgs,
  parseLogLevel,
  LogLevels,
  runUsage,
  type LogLevel,
  type RunConfig,
  type RunIo,
} from './run.js';
export { parseBindAddress, type BindAddress } from '../codec/args.js';
export {
  statusCommand,
  parseStatusArgs,
  formatStatusTable,
  statusJson,
  statusUsage,
  type StatusConfig,
  type StatusIo,
  type StatusSource,
} from './status.js';
