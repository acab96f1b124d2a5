// examples/capi-openstack must stay valid: the template decodes without losing a field, and
// both MachineHealthChecks point at it with the reference form their API version uses.
import * as E from 'fp-ts/lib/Either.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { API_VERSION, decodeOpenStackRemediationTemplate, TEMPLATE_KIND } from './index.js';

const dir = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  '..',
  'examples',
  'capi-openstack',
);
const load = (f: string) => parse(readFileSync(join(dir, f), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('examples/capi-openstack', () => {
  const template = load('openstackremediationtemplate.yaml');

  it('the template is valid and every field survives decoding (no typos pruned away)', () => {
    expect(decodeOpenStackRemediationTemplate(template)).toEqual(E.right(template));
  });

  it('the v1beta2 MachineHealthCheck references the template by templateRef', () => {
    const mhc = load('machinehealthcheck-v1beta2.yaml');
    expect(mhc.apiVersion).toBe('cluster.x-k8s.io/v1beta2');
    expect(mhc.metadata.namespace).toBe(template.metadata.namespace);
    expect(mhc.spec.remediation.templateRef).toEqual({
      apiVersion: API_VERSION,
      kind: TEMPLATE_KIND,
      name: template.metadata.name,
    });
    expect(
      mhc.spec.checks.unhealthyNodeConditions.every((c: { timeoutSeconds: unknown }) =>
        Number.isInteger(c.timeoutSeconds),
      ),
    ).toBe(true);
  });

  it('the v1beta1 MachineHealthCheck references the template by remediationTemplate', () => {
    const mhc = load('machinehealthcheck-v1beta1.yaml');
    expect(mhc.apiVersion).toBe('cluster.x-k8s.io/v1beta1');
    expect(mhc.spec.remediationTemplate).toEqual({
      apiVersion: API_VERSION,
      kind: TEMPLATE_KIND,
      name: template.metadata.name,
      namespace: template.metadata.namespace,
    });
    expect(mhc.spec.unhealthyConditions.map((c: { timeout: string }) => c.timeout)).toEqual([
      '300s',
      '300s',
    ]);
  });
});
