/**
 * From a Cluster API Machine to its OpenStack server and cloud: the CAPI and CAPO objects as
 * remediation reads them, the identity Secret read as a cloud config, and the one-step server
 * action on Nova. The Keystone + Nova client and the Nova machine provider themselves are
 * `@noderepair/openstack`.
 *
 * @packageDocumentation
 */
export * from '../capi/index.js';
export { executeStep, fenceOf, type ServerActionRequest } from '../controller/server-action.js';
