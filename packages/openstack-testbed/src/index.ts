export { startOpenStackTestbed } from './testbed.js';
export type { OpenStackTestbed } from './testbed.js';
export { issueToken } from './keystone.js';
export type { Identity, Token } from './keystone.js';
export {
  COMPUTE_MICROVERSION,
  computeUrl,
  instanceActionEvents,
  listInstanceActions,
  serverMetadata,
  serverState,
} from './nova.js';
export type { InstanceAction, InstanceActionEvent, ServerState } from './nova.js';
export {
  parseEnvExports,
  runningServices,
  runScript,
  ScriptError,
  testbedScript,
} from './script.js';
export type { ScriptOptions } from './script.js';
