// @noderepair/capo-remediation public API. The Keystone + Nova client and the Nova machine
// provider live in @noderepair/openstack (shared with `noderepair run`).
export * from './api/index.js';
export * from './capi/index.js';
export * from './testing/index.js';
export * from './controller/index.js';
