// Two replicas of a controller image as containers on the host network, each started from the
// install bundle's pod template (src/pod-template.ts), against a private envtest control
// plane, authenticated as the bundle's ServiceAccount through the in-cluster path (token and
// CA where the kubelet mounts them, read-only).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseResource, type KubeClient, type KubeLease } from '@noderepair/core/kube';
import { freePort } from '@noderepair/envtest';
import { until } from '../../../chaos/src/wait.js';
import { podman, RUN_FLAGS } from '../../src/podman.js';
import { podmanRunArgs, type PodTemplate } from '../../src/pod-template.js';
import { repoRoot } from '../../src/exec.js';
import ts from 'typescript';

export interface Replica {
  name: string;
  metricsPort: number;
  probePort: number;
  args: string[];
}

export interface ReplicaSetup {
  template: PodTemplate;
  image: string;
  namespace: string;
  server: string;
  caPem: string;
  token: string;
  volumeSources?: Record<string, string>;
}

/** A projected service account volume: token, ca.crt, namespace (mode 0644, as the kubelet writes them). */
export function serviceAccountDir(s: Pick<ReplicaSetup, 'caPem' | 'token' | 'namespace'>): string {
  const dir = mkdtempSync(join(tmpdir(), 'noderepair-sa-'));
  chmodSync(dir, 0o755);
  for (const [f, text] of [
    ['token', s.token],
    ['ca.crt', s.caPem],
    ['namespace', s.namespace],
  ] as const) {
    writeFileSync(join(dir, f), text);
    chmodSync(join(dir, f), 0o644);
  }
  return dir;
}

export async function startReplica(s: ReplicaSetup, name: string): Promise<Replica> {
  const url = new URL(s.server);
  const [metricsPort, probePort] = [await freePort(), await freePort()];
  const args = podmanRunArgs(s.template, {
    podName: name,
    namespace: s.namespace,
    image: s.image,
    volumeSources: s.volumeSources ?? {},
    serviceAccountDir: serviceAccountDir(s),
    apiServer: { host: url.hostname, port: Number(url.port) },
    metricsPort,
    probePort,
  });
  await podman(['rm', '--force', '--ignore', name]);
  await podman(['run', '--detach', ...RUN_FLAGS, ...args]);
  return { name, metricsPort, probePort, args };
}

export const status = async (url: string): Promise<number> =>
  fetch(url).then(
    (r) => r.status,
    () => 0,
  );

export async function holder(
  client: KubeClient,
  ns: string,
  lease: string,
): Promise<string | undefined> {
  const l = await client
    .get<KubeLease>(LeaseResource, lease, { namespace: ns })
    .catch(() => undefined);
  // The holder identity is POD_NAME + '_' + a random UUID (core's defaultLeaderIdentity):
  // the Pod that holds it is the part before the suffix.
  return l?.spec?.holderIdentity?.replace(/_[0-9a-f-]{36}$/, '') ?? undefined;
}

export async function inspect(name: string, format: string): Promise<string> {
  return (await podman(['inspect', '--format', format, name])).trim();
}

/** The container's main process as the kernel sees it (/proc/PID/status). */
export async function processStatus(
  name: string,
): Promise<{ uid: string; gid: string; capEff: string }> {
  const pid = await inspect(name, '{{.State.Pid}}');
  const st = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (k: string) => (new RegExp(`^${k}:\\s*(.*)$`, 'm').exec(st)?.[1] ?? '').trim();
  return { uid: field('Uid'), gid: field('Gid'), capEff: field('CapEff') };
}

export const logs = (name: string) =>
  podman(['logs', name]).catch((e: Error) => `(no logs: ${e.message})`);

/** Waits until the container has exited; returns its exit code. */
export async function exitCode(name: string): Promise<number> {
  await until('the container to exit', async () =>
    (await inspect(name, '{{.State.Status}}')) === 'exited' ? true : undefined,
  );
  return Number(await inspect(name, '{{.State.ExitCode}}'));
}

/**
 * The two replicas' shared checks, in the order a rollout sees them; `remediate` runs with
 * the survivor leading. Returns the figures (ms) for the report.
 */
export async function leaderLifecycle(
  s: ReplicaSetup & { client: KubeClient; leaseName: string; metricsMatch: RegExp },
  remediate: (leader: Replica) => Promise<void>,
  expect: typeof import('vitest').expect,
  figures: Record<string, number | string>,
): Promise<void> {
  const a = await startReplica(s, `${s.leaseName.split('.')[0]}-a`);
  const b = await startReplica(s, `${s.leaseName.split('.')[0]}-b`);
  try {
    const first = await until(
      'one replica to hold the Lease',
      async () => {
        const h = await holder(s.client, s.namespace, s.leaseName);
        return h === a.name || h === b.name ? h : undefined;
      },
      180_000,
      250,
    );
    const leader = first === a.name ? a : b;
    const follower = leader === a ? b : a;
    // Probes and metrics on every replica (a follower is alive, and ready: it keeps warm caches).
    for (const r of [leader, follower]) {
      await until(`${r.name} /readyz`, async () =>
        (await status(`http://127.0.0.1:${r.probePort}/readyz`)) === 200 ? true : undefined,
      );
      expect(await status(`http://127.0.0.1:${r.probePort}/healthz`)).toBe(200);
      const m = await fetch(`http://127.0.0.1:${r.metricsPort}/metrics`);
      expect(m.status).toBe(200);
      expect(await m.text()).toMatch(s.metricsMatch);
      // Non-root, no capabilities, as the pod template says (and not because podman chose so).
      const p = await processStatus(r.name);
      expect(p.uid.split(/\s+/)).toEqual(['65532', '65532', '65532', '65532']);
      expect(p.gid.split(/\s+/)[0]).toBe('65532');
      expect(BigInt(`0x${p.capEff}`)).toBe(0n);
      expect(await inspect(r.name, '{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
    }
    // The leader dies without a goodbye (SIGKILL, as a node loss): the follower takes over
    // once the Lease expires.
    const killed = Date.now();
    await podman(['kill', '--signal', 'KILL', leader.name]);
    await until(
      'the follower to take the Lease',
      async () =>
        (await holder(s.client, s.namespace, s.leaseName)) === follower.name ? true : undefined,
      120_000,
      100,
    );
    figures['takeoverMs'] = Date.now() - killed;
    await remediate(follower);
    // SIGTERM with the Pod's grace period: podman stop sends SIGKILL only after it runs out
    // (exit 137); a clean exit 0 within it, and the Lease handed back.
    const grace = s.template.spec.terminationGracePeriodSeconds ?? 30;
    const stopped = Date.now();
    await podman(['stop', '--time', String(grace), follower.name]);
    figures['shutdownMs'] = Date.now() - stopped;
    expect(await exitCode(follower.name), await logs(follower.name)).toBe(0);
    expect(await holder(s.client, s.namespace, s.leaseName)).toBe('');
    // Nothing written outside the mounted volumes: the root file system is read-only, and the
    // container layer holds only what the runtime made for the mounts (their mount points, and
    // /etc's hosts, hostname, resolv.conf), no file of the process.
    for (const r of [leader, follower]) {
      expect(unexpectedChanges(await podman(['diff', r.name]), r.args)).toEqual([]);
      expect(await logs(r.name)).not.toMatch(/EROFS|read-only file system|EACCES/);
    }
    figures['podmanRun'] = follower.args.join(' ');
  } finally {
    for (const r of [a, b])
      await podman(['rm', '--force', '--ignore', r.name]).catch(() => undefined);
  }
}

/** Mount targets of a `podman run` argument list (volumes and tmpfs). */
function mountTargets(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length - 1; i++) {
    const v = args[i + 1] as string;
    if (args[i] === '--volume') out.push(v.split(':')[1] as string);
    if (args[i] === '--tmpfs') out.push(v.split(':')[0] as string);
  }
  return out;
}

/** `podman diff` lines that are neither a mount point (or its parent) nor the runtime's /etc files. */
export function unexpectedChanges(diff: string, args: readonly string[]): string[] {
  const allowed = new Set([
    '/etc',
    '/etc/hosts',
    '/etc/hostname',
    '/etc/resolv.conf',
    '/run',
    '/run/.containerenv',
  ]);
  for (const t of mountTargets(args)) {
    const parts = t.split('/').filter(Boolean);
    for (let i = 1; i <= parts.length; i++) allowed.add(`/${parts.slice(0, i).join('/')}`);
  }
  return diff
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !allowed.has(l.replace(/^[ACD] /, '')));
}

export function scratchDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(d, { recursive: true });
  chmodSync(d, 0o755);
  return d;
}

/**
 * The template with a FAKE provider that repairs nothing and never fences, for a container
 * run outside --dry-run (the CLI refuses its own dry-run provider there): the chaos suite's
 * fake-recording-provider.ts compiled to JavaScript into a directory the container mounts
 * read-only, and `--provider-module` naming it. Returns the template and its volume source.
 * The bundle's own provider (`--provider=openstack --cloud=...`, OS_CLIENT_CONFIG_FILE and the
 * clouds Secret's volume) is taken out: the two flags exclude each other, and this test has
 * no cloud.
 */
export function withFakeRecordingProvider(t: PodTemplate): {
  template: PodTemplate;
  volumeSources: Record<string, string>;
} {
  const dir = scratchDir('noderepair-fake-provider-');
  const source = readFileSync(
    join(repoRoot, 'packages', 'chaos', 'src', 'fake-recording-provider.ts'),
    'utf8',
  );
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  writeFileSync(join(dir, 'fake-recording-provider.mjs'), js);
  chmodSync(join(dir, 'fake-recording-provider.mjs'), 0o644);
  const mountPath = '/opt/noderepair-fake-provider';
  const [c, ...rest] = t.spec.containers;
  if (!c) throw new Error('the pod template has no container');
  const ownProvider = /^--(provider|cloud|provider-opt)=/;
  return {
    template: {
      ...t,
      spec: {
        ...t.spec,
        volumes: [
          ...(t.spec.volumes ?? []).filter((v) => v.name !== 'clouds'),
          { name: 'fake-provider', configMap: { name: 'fake' } },
        ],
        containers: [
          {
            ...c,
            args: [
              ...(c.args ?? []).filter((a) => !ownProvider.test(a)),
              '--provider-module',
              `${mountPath}/fake-recording-provider.mjs`,
            ],
            ...(c.env ? { env: c.env.filter((e) => e.name !== 'OS_CLIENT_CONFIG_FILE') } : {}),
            volumeMounts: [
              ...(c.volumeMounts ?? []).filter((m) => m.name !== 'clouds'),
              { name: 'fake-provider', mountPath, readOnly: true },
            ],
          },
          ...rest,
        ],
      },
    },
    volumeSources: { 'fake-provider': dir },
  };
}
