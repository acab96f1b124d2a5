// The operator's pure parts: settings from the environment, the policy ConfigMap, the status.
import { toNodeView, type NodeView } from '@noderepair/core/autorepair';
import { initialRepairState, type RepairState } from '@noderepair/core/health';
import type { KubeNode } from '@noderepair/core/kube';
import { buildNode } from '@noderepair/core/testing';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { policyFromConfigMap } from '../src/policy.js';
import { statusData } from '../src/status.js';

const view = (n: Parameters<typeof buildNode>[0]): NodeView =>
  toNodeView(buildNode(n) as KubeNode, []);

describe('readConfig', () => {
  it('reads the namespace and applies the defaults', () => {
    expect(readConfig({ NAMESPACE: 'ops' })).toEqual({
      namespace: 'ops',
      policyConfigMap: 'noderepair-policy',
      statusConfigMap: 'noderepair-status',
      statusIntervalMs: 10_000,
    });
    expect(
      readConfig({
        POD_NAMESPACE: 'ops',
        LABEL_SELECTOR: 'pool=a',
        STATUS_INTERVAL_SECONDS: '0.5',
      }),
    ).toMatchObject({
      namespace: 'ops',
      labelSelector: 'pool=a',
      statusIntervalMs: 500,
    });
  });

  it('names every bad variable and what it expected', () => {
    expect(() =>
      readConfig({ STATUS_CONFIGMAP: 'Bad_Name', STATUS_INTERVAL_SECONDS: 'soon' }),
    ).toThrow(
      /NAMESPACE \(or POD_NAMESPACE\): expected a namespace name, got ""\n.*STATUS_CONFIGMAP: expected a ConfigMap name, got "Bad_Name"\n.*STATUS_INTERVAL_SECONDS: expected a positive number of seconds, got "soon"/,
    );
  });
});

describe('policyFromConfigMap', () => {
  it('always runs the policy dry', () => {
    const p = policyFromConfigMap('ops/p', {
      'policy.yaml': 'dryRun: false\nminHealthyPeriod: 30s\n',
    });
    expect(p.dryRun).toBe(true);
    expect(p.minHealthyPeriodMs).toBe(30_000);
  });

  it('says which ConfigMap and key are wrong', () => {
    expect(() => policyFromConfigMap('ops/p', {})).toThrow(
      'ConfigMap ops/p: expected the key policy.yaml',
    );
    expect(() => policyFromConfigMap('ops/p', { 'policy.yaml': 'a: [' })).toThrow(
      /^ConfigMap ops\/p policy.yaml: not YAML/,
    );
    expect(() => policyFromConfigMap('ops/p', { 'policy.yaml': 'minHealthyPeriod: soon' })).toThrow(
      /^ConfigMap ops\/p policy.yaml: .*minHealthyPeriod/,
    );
  });
});

describe('statusData', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  it('one line per node with its phase and current cause, and a summary', () => {
    const nodes = [
      view({ name: 'b', ready: 'unknown', since: now - 60_000 }),
      view({ name: 'a', ready: 'ready', since: now - 60_000 }),
    ];
    const remediating: RepairState = {
      ...initialRepairState(now - 30_000),
      phase: 'Remediating',
      remediation: {
        id: 'b-1',
        startedAt: now - 30_000,
        cause: 'KubeletUnreachable',
        step: 1,
        attempt: 1,
        cordoned: true,
      },
    };
    const data = statusData(
      nodes,
      (n) => ({ _tag: 'Right', right: n.metadata.name === 'b' ? remediating : undefined }),
      now,
    );
    expect(data).toEqual({
      a: '{"phase":"Healthy","cause":"Healthy"}',
      b: '{"phase":"Remediating","cause":"KubeletUnreachable","step":1}',
      summary: '2 node(s): 1 Healthy, 1 Remediating',
    });
  });

  it('an unreadable state counts as Healthy (the controller starts that node over too)', () => {
    const data = statusData(
      [view({ name: 'a', ready: 'runtimeDown', since: now })],
      () => ({ _tag: 'Left', left: 'corrupt' }),
      now,
    );
    expect(data['a']).toBe('{"phase":"Healthy","cause":"ContainerRuntimeDown"}');
    expect(statusData([], () => ({ _tag: 'Right', right: undefined }), now)).toEqual({
      summary: '0 node(s)',
    });
  });
});
