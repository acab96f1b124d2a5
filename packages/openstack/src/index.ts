/**
 * Our own Keystone v3 + Nova client (no maintained JavaScript one exists): clouds.yaml parsing,
 * authentication, servers and their actions, with secrets redacted from every error. Names core
 * also uses (Secret, HttpTransport, backoffDelay, ...) carry an OpenStack or retry prefix here:
 * they are different declarations. Subpaths: `/provider` (the machine provider module
 * `noderepair run --provider openstack` loads) and `/testing` (a FAKE Keystone + Nova).
 *
 * @packageDocumentation
 */
export { Secret as OpenStackSecret, REDACTED, redact } from './secret.js';
export {
  OpenStackError,
  ServerNotFound,
  ServerConflict,
  ActionMaybeSent,
  isOpenStackError,
} from './errors.js';
export type { OpenStackErrorCode } from './errors.js';
export { parseCloudsYaml, normaliseAuthUrl } from './clouds-yaml.js';
export type {
  CloudConfig,
  CloudAuth,
  PasswordAuth,
  ApplicationCredentialAuth,
  EndpointInterface,
  DomainRef,
  UserRef,
  ProjectRef,
  ParseCloudsOptions,
} from './clouds-yaml.js';
export { parseProviderID, formatProviderID } from './provider-id.js';
export type { OpenStackProviderID } from './provider-id.js';
export { selectEndpoint, Catalog } from './catalog.js';
export type { EndpointQuery, CatalogEndpoint, CatalogService } from './catalog.js';
export { tokenRequestBody, decodeTokenBody } from './keystone.js';
export type { TokenInfo } from './keystone.js';
export {
  defaultRetryPolicy,
  backoffDelay as retryBackoffDelay,
  parseRetryAfter,
  isRetriableStatus,
} from './retry.js';
export type { RetryPolicy } from './retry.js';
export { createHttpTransport } from './transport.js';
export type {
  Transport,
  HttpRequest as OpenStackHttpRequest,
  HttpResponse as OpenStackHttpResponse,
  HttpTransport as OpenStackHttpTransport,
  HttpTransportOptions as OpenStackHttpTransportOptions,
} from './transport.js';
export { KeystoneSession } from './session.js';
export type {
  SessionOptions,
  ServiceRequest,
  ServiceResponse,
  OpenStackLogger,
} from './session.js';
export { decodeServer, isServerSettledActive } from './server.js';
export type { ServerInfo } from './server.js';
export { NovaClient, faultMessage } from './nova.js';
export { NovaRebootProvider, ACTION_ID_METADATA_KEY } from './reboot-provider.js';
export { NovaMachineProvider, NOVA_ACTION_NAMES } from './machine-provider.js';
export type { NovaMachineProviderOptions } from './machine-provider.js';
export type {
  CallOptions,
  RebootType,
  NovaClientOptions,
  ActionAccepted,
  InstanceAction,
  InstanceActionDetail,
} from './nova.js';
export { createOpenStackClient, openStackClientFromCloudsYaml } from './client.js';
export type { OpenStackClient, OpenStackClientOptions } from './client.js';
