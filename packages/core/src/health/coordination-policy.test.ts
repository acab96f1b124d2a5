// The coordination section of the repair policy: defaults, and errors that name the field.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { resolveRepairPolicy } from './policy.js';
import { kuredDaemonSetRef } from './coordination-policy.js';

const left = (e: either.Either<string, unknown>): string => {
  if (either.isRight(e)) throw new Error('expected an error');
  return e.left;
};
const right = <A>(e: either.Either<string, A>): A => {
  if (either.isLeft(e)) throw new Error(e.left);
  return e.right;
};

describe('coordination policy', () => {
  it('defaults: every actor but SystemUpgrade (ManualCordon too, since issue 42), kured in kube-system, leases in medik8s-leases', () => {
    const c = right(resolveRepairPolicy({})).coordination;
    expect(c).toEqual({
      actors: [
        'Kured',
        'NodeMaintenance',
        'Medik8sLease',
        'ClusterAPIRollout',
        'Karpenter',
        'ManualCordon',
      ],
      kured: { daemonSet: 'kube-system/kured', lockAnnotation: 'weave.works/kured-node-lock' },
      medik8sLease: { namespace: 'medik8s-leases' },
      systemUpgrade: { namespace: 'system-upgrade' },
    });
    expect(kuredDaemonSetRef(c)).toEqual({ namespace: 'kube-system', name: 'kured' });
  });

  it('takes the actors and a Helm-installed kured as written', () => {
    const c = right(
      resolveRepairPolicy({
        coordination: {
          actors: ['ManualCordon', 'Kured'],
          kured: { daemonSet: 'kured/kured-chart' },
          medik8sLease: { namespace: 'ops-leases' },
        },
      }),
    ).coordination;
    expect(c.actors).toEqual(['ManualCordon', 'Kured']);
    expect(kuredDaemonSetRef(c)).toEqual({ namespace: 'kured', name: 'kured-chart' });
    expect(c.medik8sLease.namespace).toBe('ops-leases');
  });

  it('an unknown field or actor is an error naming it', () => {
    expect(left(resolveRepairPolicy({ coordination: { actor: ['Kured'] } }))).toContain(
      'coordination.actor: unknown field "actor" (did you mean "actors"?)',
    );
    expect(left(resolveRepairPolicy({ coordination: { kured: { daemonset: 'a/b' } } }))).toContain(
      'coordination.kured.daemonset: unknown field "daemonset" (did you mean "daemonSet"?)',
    );
    expect(
      left(resolveRepairPolicy({ coordination: { actors: ['Kured', 'Karpentr'] } })),
    ).toContain(
      'coordination.actors[1]: expected one of Kured, NodeMaintenance, Medik8sLease, ClusterAPIRollout, ManualCordon, SystemUpgrade, Karpenter, got "Karpentr"',
    );
  });

  it('rejects a repeated actor, a DaemonSet that is not namespace/name, and a bad key or namespace', () => {
    expect(
      left(
        resolveRepairPolicy({ coordination: { actors: ['Kured', 'NodeMaintenance', 'Kured'] } }),
      ),
    ).toContain('coordination.actors[2]: Kured is already listed at [0]');
    for (const ds of ['kured', 'a/b/c', 'Kube-System/kured', '/kured'])
      expect(left(resolveRepairPolicy({ coordination: { kured: { daemonSet: ds } } }))).toContain(
        `coordination.kured.daemonSet: expected "namespace/name" of kured's DaemonSet, got "${ds}"`,
      );
    expect(
      left(resolveRepairPolicy({ coordination: { kured: { lockAnnotation: 'a b' } } })),
    ).toContain('coordination.kured.lockAnnotation: expected an annotation key');
    expect(
      left(resolveRepairPolicy({ coordination: { medik8sLease: { namespace: 'Medik8s' } } })),
    ).toContain('coordination.medik8sLease.namespace: expected a namespace name, got "Medik8s"');
  });

  it('kured settings without Kured in the actors would be ignored, so they are an error', () => {
    expect(
      left(
        resolveRepairPolicy({
          coordination: { actors: ['NodeMaintenance'], kured: { daemonSet: 'kube-system/kured' } },
        }),
      ),
    ).toContain('coordination.kured: only used when coordination.actors lists Kured');
    expect(
      left(resolveRepairPolicy({ coordination: { systemUpgrade: { namespace: 'upgrades' } } })),
    ).toContain(
      'coordination.systemUpgrade: only used when coordination.actors lists SystemUpgrade',
    );
    expect(
      right(
        resolveRepairPolicy({
          coordination: { actors: ['SystemUpgrade'], systemUpgrade: { namespace: 'upgrades' } },
        }),
      ).coordination.systemUpgrade,
    ).toEqual({ namespace: 'upgrades' });
  });
});
