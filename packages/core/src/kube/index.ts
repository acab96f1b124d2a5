/**
 * Talking to the Kubernetes API: the KubeClient port, its resource types and errors, the
 * kubeconfig / in-cluster loader and the default adapter over node:https. A `@kubernetes/client-node`
 * KubeConfig is accepted, never imported. The kubernetes-fluent-client adapter is
 * `@noderepair/core/kfc`.
 *
 * @packageDocumentation
 */
export * from './object.js';
export * from './resource.js';
export * from './status.js';
export * from './errors.js';
export type * from './client.js';
export * from './types.js';
export * from './pagination.js';
export * from './typed.js';
export { decodeWatchStream, decodeWatchLine, WatchDecodeError } from './watch-decoder.js';
export {
  RestKubeClient,
  type HttpTransport,
  type HttpRequest,
  type HttpResponse,
  type HttpStream,
} from './rest-client.js';
export { createKubeClient, type ClientNodeTransportOptions } from './client-node/index.js';
export type {
  HttpsTransportOptions,
  Credentials,
  CredentialSource,
  TlsMaterial,
} from './https-transport.js';
export * from './config/index.js';
