// The identityRef Secret -> a CloudConfig: key clouds.yaml (required) and cacert (optional
// PEM), the cloud chosen by identityRef.cloudName, identityRef.region overriding clouds.yaml
// as CAPO does. Secret data arrives base64-encoded.
import * as E from 'fp-ts/lib/Either.js';
import { parseCloudsYaml, type CloudConfig } from '@noderepair/openstack';
import type { IdentityRef } from './openstack-machine.js';

/** The parts of a Secret read here; enough of a core/v1 Secret for tests to build one by hand. */
export interface SecretLike {
  /** Name and namespace, used only in messages. */
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  /** The Secret's data, values base64-encoded as the API returns them. */
  readonly data?: Readonly<Record<string, string>>;
}

function decode(b64: string | undefined): string | undefined {
  return b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8');
}

/**
 * The cloud an identityRef names, from its Secret's `clouds.yaml` (and optional `cacert`) keys;
 * the identityRef's region wins over clouds.yaml. Left names the Secret and what is wrong,
 * never a credential.
 */
export function cloudFromIdentitySecret(
  secret: SecretLike,
  ref: IdentityRef,
): E.Either<string, CloudConfig> {
  const where = `Secret ${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ref.name}`;
  if (ref.type !== 'Secret')
    return E.left(`identityRef type ${ref.type} is not supported (only Secret)`);
  const yaml = decode(secret.data?.['clouds.yaml']);
  if (!yaml) return E.left(`${where}: key clouds.yaml is missing`);
  const parsed = parseCloudsYaml(yaml, ref.cloudName, { caCert: decode(secret.data?.['cacert']) });
  if (E.isLeft(parsed)) return E.left(`${where}: ${parsed.left}`);
  return E.right(ref.region ? { ...parsed.right, region: ref.region } : parsed.right);
}
