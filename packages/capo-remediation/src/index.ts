// @noderepair/capo-remediation public API.
export * from './api/index.js';
export * from './capi/index.js';
export * from './openstack/index.js';
export * from './testing/index.js';
export { formatErrors } from './codec/index.js';
export * from './controller/index.js';
