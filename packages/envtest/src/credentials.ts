import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Credentials {
  /** Bearer token of the admin user (group system:masters). */
  adminToken: string;
  tokenFile: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/**
 * Writes what kube-apiserver needs to authenticate: a static token file for an admin in
 * system:masters (so no client certificates need minting) and the ServiceAccount signing
 * key pair (so TokenRequest works, e.g. for least-privilege tests).
 */
export function writeCredentials(dir: string): Credentials {
  const adminToken = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${adminToken},envtest-admin,envtest-admin-uid,"system:masters"\n`, { mode: 0o600 });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  writeFileSync(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
  return { adminToken, tokenFile, serviceAccountKey, serviceAccountPub };
}
