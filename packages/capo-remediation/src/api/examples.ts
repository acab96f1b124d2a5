// Complete, valid objects of both kinds (every optional field set). Used by the manifests
// generator for examples/, by the README, and by tests that derive invalid variants.
import { API_VERSION, REMEDIATION_KIND, TEMPLATE_KIND } from './group-version.js';

/**
 * A complete, valid OpenStackRemediationTemplate with every optional field set (a three-step
 * ladder ending in Rebuild), for docs, examples and tests.
 */
export function exampleRemediationTemplate(name = 'openstack-reboot', namespace = 'default') {
  return {
    apiVersion: API_VERSION,
    kind: TEMPLATE_KIND,
    metadata: { name, namespace },
    spec: {
      template: {
        metadata: {
          labels: { 'noderepair.dev/ladder': 'reboot-rebuild' },
          annotations: { 'noderepair.dev/owner': 'platform-team' },
        },
        spec: {
          steps: [
            { type: 'SoftReboot', timeoutSeconds: 300, retries: 0 },
            { type: 'HardReboot', timeoutSeconds: 600, retries: 1 },
            {
              type: 'Rebuild',
              imageRef: '2f1b0d3c-5c2a-4d1e-9d35-3c8f1e0b7a11',
              timeoutSeconds: 1200,
              retries: 0,
            },
          ],
          drain: { enabled: true, timeoutSeconds: 300, outOfServiceTaint: true },
          minHealthySeconds: 120,
        },
      },
    },
  };
}

/** A complete, valid OpenStackRemediation, status included, for docs, examples and tests. */
export function exampleRemediation(name = 'worker-md-0-abcde-xyz12', namespace = 'default') {
  return {
    apiVersion: API_VERSION,
    kind: REMEDIATION_KIND,
    metadata: { name, namespace },
    spec: exampleRemediationTemplate().spec.template.spec,
    status: {
      phase: 'Waiting',
      currentStep: 1,
      retryCount: 1,
      lastRemediated: '2026-12-02T12:10:00Z',
      serverID: '6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11',
      observedGeneration: 1,
      history: [
        {
          step: 0,
          type: 'SoftReboot',
          attempt: 1,
          startTime: '2026-12-02T12:00:00Z',
          completionTime: '2026-12-02T12:05:00Z',
          result: 'TimedOut',
          message: 'node not Ready within 300s',
        },
        {
          step: 1,
          type: 'HardReboot',
          attempt: 1,
          startTime: '2026-12-02T12:05:00Z',
          completionTime: '2026-12-02T12:10:00Z',
          result: 'TimedOut',
          message: 'node not Ready within 600s',
        },
        {
          step: 1,
          type: 'HardReboot',
          attempt: 2,
          startTime: '2026-12-02T12:10:00Z',
          result: 'InProgress',
        },
      ],
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          observedGeneration: 1,
          lastTransitionTime: '2026-12-02T12:00:00Z',
          reason: 'Remediating',
          message: 'HardReboot attempt 2 of 2',
        },
        {
          type: 'Drained',
          status: 'True',
          lastTransitionTime: '2026-12-02T11:59:00Z',
          reason: 'Drained',
          message: '',
        },
      ],
    },
  };
}
