// The one-call setup: clouds.yaml (+ cacert) -> session over a verified HTTPS transport ->
// Nova client. The controller builds one per identityRef Secret and closes it when the
// Secret changes.
import * as E from 'fp-ts/lib/Either.js';
import { parseCloudsYaml } from './clouds-yaml.js';
import type { CloudConfig } from './clouds-yaml.js';
import { OpenStackError } from './errors.js';
import { NovaClient, type NovaClientOptions } from './nova.js';
import { KeystoneSession, type SessionOptions } from './session.js';
import { createHttpTransport, type Transport } from './transport.js';

/** A ready-to-use client for one cloud: the Keystone session and the Nova client on top of it. */
export interface OpenStackClient {
  /** The cloud it was built for. */
  readonly cloud: CloudConfig;
  /** The authenticated session; for services other than Nova. */
  readonly session: KeystoneSession;
  /** Nova's compute API. */
  readonly nova: NovaClient;
  /** Closes the HTTPS connections it opened (a no-op when a transport was passed in). */
  close(): Promise<void>;
}

/** Session and Nova options for createOpenStackClient; everything is optional. */
export interface OpenStackClientOptions
  extends Omit<SessionOptions, 'cloud' | 'transport'>,
    NovaClientOptions {
  /** Use this transport instead of HTTPS (FakeOpenStack's in-memory one in tests). */
  readonly transport?: Transport | undefined;
}

/**
 * Builds the session and Nova client for `cloud`, over HTTPS with the cloud's CA and verify
 * settings unless `opts.transport` is given; no request is sent until the first call.
 */
export function createOpenStackClient(
  cloud: CloudConfig,
  opts: OpenStackClientOptions = {},
): OpenStackClient {
  const http = opts.transport
    ? undefined
    : createHttpTransport({ caCert: cloud.caCert, verify: cloud.verify });
  const transport = opts.transport ?? (http as NonNullable<typeof http>).transport;
  const session = new KeystoneSession({ ...opts, cloud, transport });
  const nova = new NovaClient(session, opts);
  return {
    cloud,
    session,
    nova,
    close: async () => {
      await http?.close();
    },
  };
}

/** From the identityRef Secret's data: clouds.yaml text, the cloud name and an optional PEM. */
export function openStackClientFromCloudsYaml(
  cloudsYaml: string,
  cloudName: string,
  caCert: string | undefined,
  opts: OpenStackClientOptions = {},
): OpenStackClient {
  const cloud = parseCloudsYaml(cloudsYaml, cloudName, { caCert });
  if (E.isLeft(cloud)) throw new OpenStackError('ConfigError', cloud.left);
  return createOpenStackClient(cloud.right, opts);
}
