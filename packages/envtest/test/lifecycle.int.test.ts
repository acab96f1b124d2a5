import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { startControlPlane, waitFor } from '../src/index.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('control plane lifecycle', () => {
  it('stop() leaves no process behind and removes its directory', async () => {
    const cp = await startControlPlane();
    expect(cp.version).toMatch(/^v1\.\d+\.\d+/);
    expect(cp.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const pids = cp.pids;
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    const ns = await cp.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
    expect(ns.items.map((n) => n.metadata?.name)).toContain('default');
    await cp.stop();
    expect(pids.filter(alive)).toEqual([]);
  });

  it('a crashed (SIGKILLed) owner process takes its components down with it', async () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const fixture = fileURLToPath(new URL('./fixtures/start-and-hang.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const pids = await new Promise<number[]>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { pids: number[] }).pids);
      });
      child.once('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    child.kill('SIGKILL');
    await waitFor('components to die', async () => (pids.some(alive) ? undefined : true), 15_000);
    expect(pids.filter(alive)).toEqual([]);
  });

  it('two control planes started in parallel do not collide', async () => {
    const [a, b] = await Promise.all([startControlPlane(), startControlPlane()]);
    try {
      expect(a.server).not.toBe(b.server);
      expect(a.dir).not.toBe(b.dir);
      expect(a.etcdUrl).not.toBe(b.etcdUrl);
      const coreA = a.kubeConfig.makeApiClient(CoreV1Api);
      const coreB = b.kubeConfig.makeApiClient(CoreV1Api);
      await coreA.createNamespace({ body: { metadata: { name: 'only-in-a' } } });
      const inB = await coreB.listNamespace();
      expect(inB.items.map((n) => n.metadata?.name)).not.toContain('only-in-a');
      // b's admin token is not valid on a: they are separate clusters, not two views of one.
      await expect(a.kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: 'only-in-a' })).resolves.toBeDefined();
      expect(a.adminToken).not.toBe(b.adminToken);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
