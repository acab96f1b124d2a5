import { NotFoundError, type KubeClient, type ResourceType } from '@noderepair/core/kube';
import { ManualClock } from '@noderepair/core/testing';
import { describe, expect, it } from 'vitest';
import { RecentSecrets, SECRET_RECHECK_MS } from './recent-secrets.js';

/** A management cluster's Secrets as the apiserver answers GETs; records every GET. */
function secretsApi(gets: string[]) {
  const secrets = new Map<string, { metadata: { resourceVersion: string } }>();
  let failNext: Error | undefined;
  const client = {
    get: async (rt: ResourceType, name: string, o: { namespace: string }) => {
      const key = `${o.namespace}/${name}`;
      gets.push(`${rt.plural}/${key}`);
      await Promise.resolve();
      if (failNext) {
        const e = failNext;
        failNext = undefined;
        throw e;
      }
      const s = secrets.get(key);
      if (!s)
        throw new NotFoundError({ kind: 'Status', code: 404, reason: 'NotFound', message: key });
      return s;
    },
  } as unknown as KubeClient;
  return {
    client,
    put: (key: string, rv: string) => secrets.set(key, { metadata: { resourceVersion: rv } }),
    failOnce: (e: Error) => (failNext = e),
  };
}

describe('RecentSecrets: each Secret read at most once per recheck window', () => {
  it('reuses a read within the window and reads again after it (a change is seen then)', async () => {
    const gets: string[] = [];
    const api = secretsApi(gets);
    const clock = new ManualClock(1_000_000);
    const secrets = new RecentSecrets(api.client, { clock });
    api.put('ns/creds', '1');
    expect((await secrets.get('ns', 'creds'))?.metadata?.resourceVersion).toBe('1');
    api.put('ns/creds', '2');
    clock.advance(SECRET_RECHECK_MS - 1);
    expect((await secrets.get('ns', 'creds'))?.metadata?.resourceVersion).toBe('1');
    expect(gets).toEqual(['secrets/ns/creds']);
    clock.advance(1);
    expect((await secrets.get('ns', 'creds'))?.metadata?.resourceVersion).toBe('2');
    expect(gets).toEqual(['secrets/ns/creds', 'secrets/ns/creds']);
  });

  it('concurrent reconciles share one read; other names and namespaces are read apart', async () => {
    const gets: string[] = [];
    const api = secretsApi(gets);
    const secrets = new RecentSecrets(api.client, { clock: new ManualClock() });
    api.put('ns/a', '1');
    api.put('ns/b', '1');
    api.put('other/a', '1');
    await Promise.all([
      secrets.get('ns', 'a'),
      secrets.get('ns', 'a'),
      secrets.get('ns', 'b'),
      secrets.get('other', 'a'),
    ]);
    expect(gets.sort()).toEqual(['secrets/ns/a', 'secrets/ns/b', 'secrets/other/a']);
  });

  it('never remembers a missing Secret or an error: the next call asks the API', async () => {
    const gets: string[] = [];
    const api = secretsApi(gets);
    const secrets = new RecentSecrets(api.client, { clock: new ManualClock() });
    expect(await secrets.get('ns', 'creds')).toBeUndefined();
    api.put('ns/creds', '1');
    expect((await secrets.get('ns', 'creds'))?.metadata?.resourceVersion).toBe('1');
    api.failOnce(new Error('apiserver unavailable'));
    secrets.forget('ns', 'creds');
    await expect(secrets.get('ns', 'creds')).rejects.toThrow('apiserver unavailable');
    expect((await secrets.get('ns', 'creds'))?.metadata?.resourceVersion).toBe('1');
    expect(gets).toHaveLength(4);
  });

  it('forget(): a Secret its user could not use is read again at once', async () => {
    const gets: string[] = [];
    const api = secretsApi(gets);
    const secrets = new RecentSecrets(api.client, { clock: new ManualClock() });
    api.put('ns/kc', '1');
    await secrets.get('ns', 'kc');
    api.put('ns/kc', '2');
    secrets.forget('ns', 'kc');
    expect((await secrets.get('ns', 'kc'))?.metadata?.resourceVersion).toBe('2');
    expect(gets).toHaveLength(2);
  });

  it('maxAgeMs 0 reads on every call', async () => {
    const gets: string[] = [];
    const api = secretsApi(gets);
    const secrets = new RecentSecrets(api.client, { clock: new ManualClock(), maxAgeMs: 0 });
    api.put('ns/creds', '1');
    await secrets.get('ns', 'creds');
    await secrets.get('ns', 'creds');
    expect(gets).toHaveLength(2);
  });
});
