import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { parseFlags, USAGE } from './flags.js';

describe('parseFlags', () => {
  it('reads the Deployment args (config/manager/manager.yaml) and the downward-API env', () => {
    const r = parseFlags(
      [
        '--leader-elect',
        '--leader-election-id=capo-remediation.noderepair.dev',
        '--metrics-bind-address=:8080',
        '--health-probe-bind-address=:8081',
      ],
      { POD_NAMESPACE: 'noderepair-system', POD_NAME: 'capo-remediation-controller-abc' },
    );
    expect(r).toEqual(
      E.right({
        kubeconfig: undefined,
        leaderElect: true,
        leaderElectionId: 'capo-remediation.noderepair.dev',
        leaderElectionNamespace: 'noderepair-system',
        metricsBindAddress: { host: undefined, port: 8080 },
        healthProbeBindAddress: { host: undefined, port: 8081 },
        namespace: undefined,
        identity: expect.stringMatching(/^capo-remediation-controller-abc_[0-9a-f-]{36}$/),
        concurrency: 4,
        defaultIdentitySecret: undefined,
        defaultCloudName: 'openstack',
        workloadClusterAccess: 'auto',
      }),
    );
  });

  it('takes values after a space, flags over env, and 0 to disable metrics', () => {
    const r = parseFlags(
      [
        '--',
        '--kubeconfig',
        '/k',
        '--namespace=capi',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=127.0.0.1:9000',
      ],
      { KUBECONFIG: '/other', WATCH_NAMESPACE: 'x' },
    );
    expect(r).toMatchObject(
      E.right({
        kubeconfig: '/k',
        namespace: 'capi',
        metricsBindAddress: undefined,
        healthProbeBindAddress: { host: '127.0.0.1', port: 9000 },
      }),
    );
  });

  it('takes the bind addresses `noderepair run` takes (core parseBindAddress)', () => {
    expect(
      parseFlags(['--metrics-bind-address=[::1]:9090', '--health-probe-bind-address', '9091'], {}),
    ).toMatchObject(
      E.right({
        metricsBindAddress: { host: '::1', port: 9090 },
        healthProbeBindAddress: { port: 9091 },
      }),
    );
    const r = parseFlags(['--health-probe-bind-address=9091'], {});
    if (E.isLeft(r) || r.right === 'help') throw new Error('parse failed');
    expect(r.right.healthProbeBindAddress).toStrictEqual({ port: 9091 });
  });

  it('names the bad flag', () => {
    const known =
      'known flags: --kubeconfig, --leader-elect, --leader-election-id, --leader-election-namespace, --metrics-bind-address, --health-probe-bind-address, --namespace, --concurrency, --default-identity-secret, --default-cloud-name, --workload-cluster-access, --help';
    expect(parseFlags(['--bogus'], {})).toEqual(
      E.left(`unknown flag --bogus; ${known} (see --help)`),
    );
    expect(parseFlags(['--leader-elections-namespace=x'], {})).toEqual(
      E.left(
        `unknown flag --leader-elections-namespace (did you mean --leader-election-namespace?); ${known} (see --help)`,
      ),
    );
    expect(parseFlags(['-x'], {})).toEqual(E.left(`unknown flag -x; ${known} (see --help)`));
    expect(parseFlags(['namespace=capi'], {})).toEqual(
      E.left('unexpected argument "namespace=capi" (flags start with --) (see --help)'),
    );
    expect(parseFlags(['--kubeconfig', '--leader-elect'], {})).toEqual(
      E.left('--kubeconfig needs a value'),
    );
    expect(parseFlags(['--metrics-bind-address=localhost'], {})).toEqual(
      E.left(
        '--metrics-bind-address: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got "localhost"',
      ),
    );
    expect(parseFlags(['--health-probe-bind-address=:65536'], {})).toEqual(
      E.left(
        '--health-probe-bind-address: expected [host]:port such as ":8080" or "127.0.0.1:8080", or "0" to disable; got ":65536"',
      ),
    );
    expect(parseFlags(['--health-probe-bind-address=0'], {})).toEqual(
      E.left('--health-probe-bind-address: the probes cannot be disabled'),
    );
    expect(parseFlags(['--concurrency=0'], {})).toEqual(
      E.left('--concurrency: expected an integer 1-64, got "0"'),
    );
    expect(parseFlags(['--kubeconfig'], {})).toEqual(E.left('--kubeconfig needs a value'));
    expect(parseFlags(['--leader-elect=maybe'], {})).toEqual(
      E.left('--leader-elect: expected true or false, got "maybe"'),
    );
    expect(parseFlags(['--workload-cluster-access=secret'], {})).toEqual(
      E.left(
        '--workload-cluster-access: expected one of auto, kubeconfig-secret, secret-or-management, management, got "secret"',
      ),
    );
    expect(parseFlags(['--workload-cluster-access', 'management'], {})).toMatchObject(
      E.right({ workloadClusterAccess: 'management' }),
    );
    expect(parseFlags(['--help'], {})).toEqual(E.right('help'));
    expect(parseFlags(['-h'], {})).toEqual(E.right('help'));
    expect(parseFlags(['--leader-elect=true'], {})).toMatchObject(E.right({ leaderElect: true }));
    expect(parseFlags(['--leader-elect=false'], {})).toMatchObject(E.right({ leaderElect: false }));
  });
});

describe('USAGE', () => {
  it('lists every flag parseFlags knows', () => {
    const r = parseFlags(['--bogus'], {});
    const known = E.isLeft(r) ? /known flags: (.*) \(see --help\)$/.exec(r.left)?.[1] : undefined;
    if (known === undefined) throw new Error('no known-flags list');
    for (const flag of known.split(', ')) expect(USAGE).toMatch(new RegExp(`${flag}[ =]`));
  });
});

describe('leader identity', () => {
  it('without POD_NAME two replicas (both PID 1 in their containers) get distinct identities', () => {
    const a = parseFlags([], {});
    const b = parseFlags([], {});
    if (E.isLeft(a) || E.isLeft(b) || a.right === 'help' || b.right === 'help')
      throw new Error('parse failed');
    expect(a.right.identity).not.toBe(b.right.identity);
    expect(a.right.identity).not.toContain(`-${process.pid}`);
  });
});
