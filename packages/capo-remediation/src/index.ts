// @noderepair/capo-remediation public API.
export * from './openstack/index.js';
