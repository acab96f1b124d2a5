// The workload cluster's kubeconfig as Cluster API publishes it: Secret <cluster>-kubeconfig in
// the Cluster's namespace, key "value" (type cluster.x-k8s.io/secret). Cluster API's own
// controllers (MachineHealthCheck included) reach a workload cluster's Nodes through it.
// Errors name the Secret and the key, never the content: a kubeconfig carries credentials.
import * as E from 'fp-ts/lib/Either.js';
import type { SecretLike } from './identity-secret.js';

/** The data key of Cluster API's kubeconfig Secret that holds the kubeconfig. */
export const KUBECONFIG_SECRET_KEY = 'value';

/** The name of Cluster API's kubeconfig Secret for a cluster: `<cluster>-kubeconfig`. */
export function kubeconfigSecretName(clusterName: string): string {
  return `${clusterName}-kubeconfig`;
}

/** The kubeconfig document (YAML or JSON text) in the Secret, checked only for shape. */
export function kubeconfigFromSecret(secret: SecretLike): E.Either<string, string> {
  const where = `Secret ${secret.metadata?.namespace ?? ''}/${secret.metadata?.name ?? ''}`;
  const b64 = secret.data?.[KUBECONFIG_SECRET_KEY];
  if (b64 === undefined || b64 === '')
    return E.left(`${where}: key ${KUBECONFIG_SECRET_KEY} is missing (expected a kubeconfig)`);
  const text = Buffer.from(b64, 'base64').toString('utf8');
  // Cheap shape checks before a client is built from it; the parser's own messages may quote
  // the document, so they are never passed on.
  if (!/\bclusters\s*["']?\s*:/.test(text) || !/\bserver\s*["']?\s*:/.test(text))
    return E.left(
      `${where}: key ${KUBECONFIG_SECRET_KEY} is not a kubeconfig (expected clusters[].cluster.server)`,
    );
  return E.right(text);
}
