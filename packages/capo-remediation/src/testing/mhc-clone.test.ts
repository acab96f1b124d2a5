import { describe, expect, it } from 'vitest';
import { exampleRemediationTemplate } from '../api/examples.js';
import { remediationFromTemplate } from './mhc-clone.js';

const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  metadata: { name: 'md-0-abc', namespace: 'capi', uid: '11111111-2222-3333-4444-555555555555' },
  spec: { clusterName: 'c1' },
};

describe('remediationFromTemplate (Cluster API external remediation contract)', () => {
  it('builds the object Cluster API would create', () => {
    const t = exampleRemediationTemplate('openstack-reboot', 'capi');
    expect(remediationFromTemplate(t, machine)).toEqual({
      apiVersion: 'remediation.noderepair.dev/v1alpha1',
      kind: 'OpenStackRemediation',
      metadata: {
        name: 'md-0-abc',
        namespace: 'capi',
        labels: {
          'noderepair.dev/ladder': 'reboot-rebuild',
          'cluster.x-k8s.io/cluster-name': 'c1',
        },
        annotations: {
          'noderepair.dev/owner': 'platform-team',
          'cluster.x-k8s.io/cloned-from-name': 'openstack-reboot',
          'cluster.x-k8s.io/cloned-from-groupkind':
            'OpenStackRemediationTemplate.remediation.noderepair.dev',
        },
        ownerReferences: [
          {
            apiVersion: 'cluster.x-k8s.io/v1beta2',
            kind: 'Machine',
            name: 'md-0-abc',
            uid: machine.metadata.uid,
          },
        ],
      },
      spec: t.spec.template.spec,
    });
  });

  it('copies the spec rather than sharing it', () => {
    const t = exampleRemediationTemplate();
    const r = remediationFromTemplate(t, machine);
    (r.spec as { minHealthySeconds: number }).minHealthySeconds = 1;
    expect(t.spec.template.spec.minHealthySeconds).toBe(120);
  });

  it('refuses a Machine without uid and a kind without the Template suffix', () => {
    const t = exampleRemediationTemplate();
    expect(() => remediationFromTemplate(t, { ...machine, metadata: { name: 'm' } })).toThrow(
      /no uid/,
    );
    expect(() => remediationFromTemplate({ ...t, kind: 'OpenStackRemediation' }, machine)).toThrow(
      /Template/,
    );
  });
});
