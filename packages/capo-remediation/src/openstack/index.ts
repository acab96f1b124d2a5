// @noderepair/capo-remediation/openstack: from a Cluster API Machine to its OpenStack server and
// cloud (CAPI and CAPO objects read as remediation sees them, the identity Secret as a cloud
// config) and the one-step server action on Nova. The Keystone + Nova client and the Nova
// machine provider themselves are @noderepair/openstack.
export * from '../capi/index.js';
export { executeStep, fenceOf, type ServerActionRequest } from '../controller/server-action.js';
