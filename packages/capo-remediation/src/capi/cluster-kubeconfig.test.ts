import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { kubeconfigFromSecret, kubeconfigSecretName } from './index.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443
users:
- name: c1-admin
  user:
    token: s3cr3t-token
contexts:
- name: c1
  context: {cluster: c1, user: c1-admin}
current-context: c1
`;

describe('the workload kubeconfig Secret', () => {
  it('is named <cluster>-kubeconfig, as Cluster API names it', () => {
    expect(kubeconfigSecretName('prod-1')).toBe('prod-1-kubeconfig');
  });

  it('yields the kubeconfig text from key value', () => {
    const r = kubeconfigFromSecret({
      metadata: { name: 'c1-kubeconfig', namespace: 'capi' },
      data: { value: b64(kubeconfig) },
    });
    expect(r).toEqual(E.right(kubeconfig));
  });

  it('names the Secret and key when value is missing or is not a kubeconfig, never quoting it', () => {
    const missing = kubeconfigFromSecret({
      metadata: { name: 'c1-kubeconfig', namespace: 'capi' },
      data: { 'tls.crt': b64('x') },
    });
    expect(missing).toEqual(
      E.left('Secret capi/c1-kubeconfig: key value is missing (expected a kubeconfig)'),
    );
    const junk = kubeconfigFromSecret({
      metadata: { name: 'c1-kubeconfig', namespace: 'capi' },
      data: { value: b64('token: s3cr3t-token\n') },
    });
    expect(E.isLeft(junk)).toBe(true);
    if (E.isLeft(junk)) {
      expect(junk.left).toContain('Secret capi/c1-kubeconfig: key value is not a kubeconfig');
      expect(junk.left).not.toContain('s3cr3t');
    }
  });
});
