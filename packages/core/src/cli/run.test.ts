import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { parseRunArgs, runCommand } from './run.js';

describe('parseRunArgs', () => {
  it('fills defaults, from the Pod environment where a Pod sets them', () => {
    const r = parseRunArgs(['--policy', 'p.yaml'], { POD_NAMESPACE: 'noderepair-system' });
    expect(r).toEqual(
      either.right({
        policyPath: 'p.yaml',
        dryRun: false,
        leaderElect: false,
        leaderElectionNamespace: 'noderepair-system',
        leaderElectionId: 'noderepair-autorepair',
        leaseHolder: 'noderepair/noderepair-system/noderepair-autorepair',
        metrics: { port: 8080 },
        probes: { port: 8081 },
        provider: { kind: 'name', name: 'dry-run' },
        providerOptions: {},
        logLevel: 'info',
      }),
    );
  });

  it('--log-level: debug, info, warn or error (else $LOG_LEVEL, else info); anything else names the flag and the allowed values', () => {
    for (const level of ['debug', 'info', 'warn', 'error'])
      expect(parseRunArgs(['--policy', 'p', '--log-level', level])).toMatchObject(
        either.right({ logLevel: level }),
      );
    expect(parseRunArgs(['--policy', 'p', '--log-level=warn'], { LOG_LEVEL: 'debug' })).toMatchObject(
      either.right({ logLevel: 'warn' }),
    );
    expect(parseRunArgs(['--policy', 'p'], { LOG_LEVEL: 'debug' })).toMatchObject(
      either.right({ logLevel: 'debug' }),
    );
    expect(parseRunArgs(['--policy', 'p'])).toMatchObject(either.right({ logLevel: 'info' }));
    expect(parseRunArgs(['--policy', 'p', '--log-level', 'verbose'])).toEqual(
      either.left('--log-level: unknown level "verbose": expected one of debug, info, warn, error'),
    );
    expect(parseRunArgs(['--policy', 'p'], { LOG_LEVEL: 'chatty' })).toEqual(
      either.left('LOG_LEVEL: unknown level "chatty": expected one of debug, info, warn, error'),
    );
  });

  it('run --log-level with an unknown level exits 2 and says what is allowed', async () => {
    const err: string[] = [];
    const code = await runCommand(['--policy', 'p.yaml', '--log-level', 'trace'], {
      stdout: () => undefined,
      stderr: (l) => err.push(l),
      readFile: () => Promise.reject(new Error('not read')),
      env: {},
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(
      /^noderepair run: --log-level: unknown level "trace": expected one of debug, info, warn, error/,
    );
    expect(err.join('\n')).toMatch(/--log-level +debug, info, warn or error/);
  });

  it('names the disruption-lease holder per install: derived from the leader-election Lease, or given; never the shared legacy one', () => {
    const a = parseRunArgs(['--policy', 'p'], { POD_NAMESPACE: 'team-a' });
    const b = parseRunArgs(['--policy', 'p'], { POD_NAMESPACE: 'team-b' });
    expect(a).toMatchObject(
      either.right({ leaseHolder: 'noderepair/team-a/noderepair-autorepair' }),
    );
    expect(b).toMatchObject(
      either.right({ leaseHolder: 'noderepair/team-b/noderepair-autorepair' }),
    );
    expect(
      parseRunArgs(['--policy', 'p', '--leader-elect', '--leader-election-id', 'nr-gpu']),
    ).toMatchObject(either.right({ leaseHolder: 'noderepair/kube-system/nr-gpu' }));
    expect(parseRunArgs(['--policy', 'p', '--disruption-lease-holder', 'site/x'])).toMatchObject(
      either.right({ leaseHolder: 'site/x' }),
    );
    const legacy = parseRunArgs(['--policy', 'p', '--disruption-lease-holder', 'noderepair']);
    expect(either.isLeft(legacy) && legacy.left).toMatch(
      /--disruption-lease-holder: "noderepair" is the legacy holder/,
    );
  });

  it('reads every flag', () => {
    const r = parseRunArgs([
      '--policy',
      'p.yaml',
      '--kubeconfig',
      'kc',
      '--dry-run',
      '--leader-elect',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '127.0.0.1:9440',
      '--label-selector',
      'pool=workers',
      '--leader-election-namespace',
      'ops',
      '--leader-election-id',
      'nr',
      '--provider',
      'openstack',
      '--cloud',
      'prod',
      '--provider-opt',
      'region=RegionTwo',
    ]);
    expect(r).toMatchObject(
      either.right({
        kubeconfigPath: 'kc',
        dryRun: true,
        leaderElect: true,
        metrics: 'disabled',
        probes: { host: '127.0.0.1', port: 9440 },
        labelSelector: 'pool=workers',
        leaderElectionNamespace: 'ops',
        leaderElectionId: 'nr',
        leaseHolder: 'noderepair/ops/nr',
        provider: { kind: 'name', name: 'openstack' },
        providerOptions: {
          cloud: { value: 'prod', flag: '--cloud' },
          region: { value: 'RegionTwo', flag: '--provider-opt' },
        },
      }),
    );
    expect(parseRunArgs(['--policy', 'p', '--provider-module', './p.js'])).toMatchObject(
      either.right({ provider: { kind: 'module', spec: './p.js' } }),
    );
  });

  it('refuses two provider sources and malformed or repeated provider options', () => {
    const p = ['--policy', 'p'];
    expect(parseRunArgs([...p, '--provider', 'openstack', '--provider-module', './x.js'])).toEqual(
      either.left('--provider and --provider-module exclude each other: give one'),
    );
    expect(parseRunArgs([...p, '--provider-opt', 'cloud'])).toEqual(
      either.left('--provider-opt: expected key=value, got "cloud"'),
    );
    expect(parseRunArgs([...p, '--provider-opt', '=x'])).toEqual(
      either.left('--provider-opt: expected key=value, got "=x"'),
    );
    expect(parseRunArgs([...p, '--cloud', 'a', '--provider-opt', 'cloud=b'])).toEqual(
      either.left('--provider-opt: option "cloud" is given twice (also by --cloud)'),
    );
    expect(parseRunArgs([...p, '--provider-opt', 'a=1', '--provider-opt', 'a=2'])).toEqual(
      either.left('--provider-opt: option "a" is given twice (also by --provider-opt)'),
    );
    // A value may itself contain "=" (only the first one splits).
    expect(parseRunArgs([...p, '--provider-opt', 'k=a=b'])).toMatchObject(
      either.right({ providerOptions: { k: { value: 'a=b' } } }),
    );
  });

  it('rejects missing --policy and unknown flags', () => {
    expect(parseRunArgs([])).toEqual(either.left('--policy is required'));
    expect(either.isLeft(parseRunArgs(['--policy', 'p', '--reboot-everything']))).toBe(true);
  });
});

describe('runCommand input errors', () => {
  const run = async (args: string[], files: Record<string, string>) => {
    const err: string[] = [];
    const code = await runCommand(args, {
      stdout: () => {},
      stderr: (l) => err.push(l),
      readFile: async (p) => {
        const f = files[p];
        if (f === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
        return f;
      },
    });
    return { code, err: err.join('\n') };
  };

  it('exits with a clear message before touching any cluster', async () => {
    expect(await run(['--policy', 'p', '--provider', 'nova'], { p: '{}' })).toMatchObject({
      code: 2,
      err: 'noderepair run: --provider: unknown provider "nova" (known: dry-run, openstack; or --provider-module SPEC)',
    });
    expect(await run(['--policy', 'missing.yaml'], {})).toMatchObject({
      code: 1,
      err: 'noderepair run: cannot read missing.yaml: ENOENT',
    });
    expect(await run(['--policy', 'p'], { p: 'stormGuard: { maxInFlight: 0 }' })).toMatchObject({
      code: 1,
      err: 'noderepair run: p: invalid repair policy: stormGuard.maxInFlight: expected an integer >= 1, got 0',
    });
    expect(
      await run(['--policy', 'p', '--dry-run', '--kubeconfig', '/nonexistent/kubeconfig'], {
        p: '{}',
      }),
    ).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /^noderepair run: cannot load the kubeconfig \/nonexistent\/kubeconfig: /,
      ),
    });
  });
});

describe('examples/standalone', () => {
  // Issue 42: the example policy file said dryRun: false while the ConfigMap said true, and
  // the manifest told users to create the ConfigMap from the file.
  it('the example policy file starts in dry-run and is the policy the ConfigMap deploys', async () => {
    const { readFile } = await import('node:fs/promises');
    const YAML = (await import('yaml')).default;
    const { resolveRepairPolicy } = await import('../health/policy.js');
    const dir = new URL('../../../../examples/standalone/', import.meta.url);
    const file = resolveRepairPolicy(
      YAML.parse(await readFile(new URL('policy.yaml', dir), 'utf8')),
    );
    const docs = YAML.parseAllDocuments(await readFile(new URL('deploy.yaml', dir), 'utf8')).map(
      (d) => d.toJS(),
    );
    const cm = docs.find((d) => d.kind === 'ConfigMap');
    const inCluster = resolveRepairPolicy(YAML.parse(cm.data['policy.yaml']));
    expect(either.isRight(file) && file.right.dryRun).toBe(true);
    // The same policy once resolved, so `kubectl create configmap --from-file=policy.yaml`
    // deploys what the manifest does.
    expect(file).toEqual(inCluster);
  });

  it('the example policy and the policy in the Deployment manifest are valid', async () => {
    const { readFile } = await import('node:fs/promises');
    const YAML = (await import('yaml')).default;
    const { resolveRepairPolicy } = await import('../health/policy.js');
    const dir = new URL('../../../../examples/standalone/', import.meta.url);
    const policy = resolveRepairPolicy(
      YAML.parse(await readFile(new URL('policy.yaml', dir), 'utf8')),
    );
    expect(either.isRight(policy) && policy.right.stormGuard.maxInFlight).toBe(1);
    const docs = YAML.parseAllDocuments(await readFile(new URL('deploy.yaml', dir), 'utf8')).map(
      (d) => d.toJS(),
    );
    const cm = docs.find((d) => d.kind === 'ConfigMap');
    const inCluster = resolveRepairPolicy(YAML.parse(cm.data['policy.yaml']));
    expect(either.isRight(inCluster) && inCluster.right.dryRun).toBe(true);
    const deploy = docs.find((d) => d.kind === 'Deployment');
    const container = deploy.spec.template.spec.containers[0];
    const args: string[] = container.args;
    expect(either.isRight(parseRunArgs(args.slice(1)))).toBe(true);
    // It runs the OpenStack provider on the cloud of the mounted clouds.yaml Secret.
    expect(args).toEqual(expect.arrayContaining(['--provider=openstack', '--cloud=openstack']));
    expect(container.env).toContainEqual({
      name: 'OS_CLIENT_CONFIG_FILE',
      value: '/etc/openstack/clouds.yaml',
    });
    expect(container.volumeMounts).toContainEqual({
      name: 'clouds',
      mountPath: '/etc/openstack',
      readOnly: true,
    });
    const secretName = deploy.spec.template.spec.volumes.find(
      (v: { name: string }) => v.name === 'clouds',
    ).secret.secretName;
    const example = YAML.parse(await readFile(new URL('clouds-secret.example.yaml', dir), 'utf8'));
    expect([example.kind, example.metadata.name]).toEqual(['Secret', secretName]);
    expect(Object.keys(YAML.parse(example.stringData['clouds.yaml']).clouds)).toEqual([
      'openstack',
    ]);
    // Replacement is an explicit opt-in: neither shipped policy names it.
    expect(either.isRight(inCluster) && inCluster.right.ladder.map((st) => st.action)).toEqual([
      'SoftReboot',
      'HardReboot',
    ]);
    expect(either.isRight(policy) && policy.right.ladder.map((st) => st.action)).not.toContain(
      'Replace',
    );
    const rbac = YAML.parseAllDocuments(await readFile(new URL('rbac.yaml', dir), 'utf8')).map(
      (d) => d.toJS(),
    );
    const rules = rbac.find((d) => d.kind === 'ClusterRole').rules as {
      resources: string[];
      verbs: string[];
    }[];
    expect(rules.find((r) => r.resources.includes('pods/eviction'))?.verbs).toEqual(['create']);
    // Leases are read only in kube-node-lease (a Role there), never cluster-wide.
    expect(rules.some((r) => r.resources.includes('leases'))).toBe(false);
    const nodeLeases = rbac.find(
      (d) => d.kind === 'Role' && d.metadata.namespace === 'kube-node-lease',
    );
    expect(nodeLeases?.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get'] },
    ]);
    // No delete by default: only rbac-replace.yaml grants it, for a ladder with Replace.
    expect(rules.find((r) => r.resources.includes('nodes'))?.verbs).toEqual([
      'get',
      'list',
      'watch',
      'patch',
    ]);
    const replace = YAML.parseAllDocuments(
      await readFile(new URL('rbac-replace.yaml', dir), 'utf8'),
    ).map((d) => d.toJS());
    expect(replace.find((d) => d.kind === 'ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['nodes'], verbs: ['delete'] },
    ]);
    expect(replace.find((d) => d.kind === 'ClusterRoleBinding').subjects).toEqual([
      { kind: 'ServiceAccount', name: 'noderepair', namespace: 'noderepair-system' },
    ]);
  });
});
