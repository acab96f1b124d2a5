import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Credentials {
  /** Bearer token of the admin user (group system:masters). */
  adminToken: string;
  /** Bearer token of each kubelet identity (user `system:node:<name>`, group `system:nodes`), by node name. */
  nodeTokens: ReadonlyMap<string, string>;
  tokenFile: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/**
 * Writes what kube-apiserver needs to authenticate: a static token file for an admin in
 * system:masters (so no client certificates need minting), one token per kubelet identity
 * asked for (the user and group the Node authorizer recognises, as a kubeadm node's client
 * certificate carries them: envtest keeps no CA key to sign one) and the ServiceAccount
 * signing key pair (so TokenRequest works, e.g. for least-privilege tests).
 */
export function writeCredentials(dir: string, nodeNames: readonly string[] = []): Credentials {
  const adminToken = randomBytes(24).toString('hex');
  const tokenFile = join(dir, 'tokens.csv');
  const nodeTokens = new Map(nodeNames.map((n) => [n, randomBytes(24).toString('hex')] as const));
  const lines = [
    `${adminToken},envtest-admin,envtest-admin-uid,"system:masters"`,
    ...[...nodeTokens].map(([n, t]) => `${t},system:node:${n},envtest-node-${n},"system:nodes"`),
  ];
  writeFileSync(tokenFile, `${lines.join('\n')}\n`, { mode: 0o600 });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  writeFileSync(serviceAccountKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(serviceAccountPub, publicKey.export({ type: 'spki', format: 'pem' }));
  return { adminToken, nodeTokens, tokenFile, serviceAccountKey, serviceAccountPub };
}
