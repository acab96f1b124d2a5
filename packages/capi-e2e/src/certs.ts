import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface WebhookCerts {
  /** Holds tls.crt and tls.key, the names the manager's --webhook-cert-dir expects. */
  dir: string;
  /** PEM of the self-signed CA: the caBundle of every webhook client config. */
  caPem: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await exec('openssl', args, { cwd });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('the openssl CLI was not found on PATH: it signs the webhook certificates');
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`);
  }
}

/**
 * A self-signed CA and a serving certificate for the manager's webhook server on the
 * loopback address, as cert-manager would issue in a real installation. Keys never leave
 * the directory (mode 0600 through openssl's defaults plus the umask of the temp dir).
 */
export async function generateWebhookCerts(dir: string): Promise<WebhookCerts> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  await openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=capi-e2e-webhook-ca'],
    dir,
  );
  writeFileSync(
    join(dir, 'server.ext'),
    ['basicConstraints=CA:FALSE', 'keyUsage=digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost', ''].join('\n'),
  );
  await openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'tls.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'], dir);
  await openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'tls.crt', '-days', '2', '-extfile', 'server.ext'],
    dir,
  );
  return { dir, caPem: readFileSync(join(dir, 'ca.crt'), 'utf8') };
}
