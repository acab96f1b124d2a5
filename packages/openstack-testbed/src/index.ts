export { startOpenStackTestbed } from './testbed.js';
export type { OpenStackTestbed } from './testbed.js';
export { issueToken } from './keystone.js';
export type { Identity, Token } from './keystone.js';
export { COMPUTE_MICROVERSION, computeUrl, listInstanceActions } from './nova.js';
export type { InstanceAction } from './nova.js';
export { parseEnvExports, runScript, testbedScript } from './script.js';
export type { ScriptOptions } from './script.js';
