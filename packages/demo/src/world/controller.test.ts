import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { noderepairCli, runArgs, statusArgs } from './controller.js';
import { successorName } from './node-group.js';

describe("the demo's noderepair is the CLI a user runs", () => {
  it('runs `noderepair run --provider openstack --cloud NAME --policy FILE` on the demo kubeconfig', () => {
    expect(
      runArgs({
        cloud: 'demo-fake',
        policyPath: '/l/policy.yaml',
        kubeconfigPath: '/cp/kubeconfig',
      }),
    ).toEqual([
      'run',
      '--provider',
      'openstack',
      '--cloud',
      'demo-fake',
      '--policy',
      '/l/policy.yaml',
      '--kubeconfig',
      '/cp/kubeconfig',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
    ]);
  });

  it('asks `noderepair status` with the same kubeconfig and policy as `run`', () => {
    expect(statusArgs({ policyPath: '/l/policy.yaml', kubeconfigPath: '/cp/kubeconfig' })).toEqual([
      'status',
      '--kubeconfig',
      '/cp/kubeconfig',
      '--policy',
      '/l/policy.yaml',
    ]);
  });

  it("finds @noderepair/core's compiled CLI", () => {
    const cli = noderepairCli();
    expect(cli).toMatch(/core[/\\]dist[/\\]cli[/\\]noderepair\.js$/);
    expect(existsSync(cli)).toBe(true);
  });
});

describe('the node group stand-in', () => {
  it('names a new machine after the one whose server is gone', () => {
    expect(successorName('zone-b-07')).toBe('zone-b-07-r1');
    expect(successorName('zone-b-07-r1')).toBe('zone-b-07-r2');
    expect(successorName('zone-b-07-r9')).toBe('zone-b-07-r10');
  });
});
