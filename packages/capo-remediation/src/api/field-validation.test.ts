// A misspelt field in an OpenStackRemediation(Template) a person wrote is an error naming it;
// only objects read back from the apiserver (already pruned) are decoded leniently.
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { exampleRemediation, exampleRemediationTemplate } from './examples.js';
import { decodeOpenStackRemediation } from './openstack-remediation.js';
import { decodeOpenStackRemediationTemplate } from './openstack-remediation-template.js';

const left = (e: E.Either<string, unknown>): string => {
  if (E.isRight(e)) throw new Error('expected an error');
  return e.left;
};

describe('fieldValidation', () => {
  it('Strict by default: a misspelt spec field is an error naming path, field and spelling', () => {
    const t = exampleRemediationTemplate() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    t.spec.template.spec.drain.timeoutSecond = 60;
    expect(left(decodeOpenStackRemediationTemplate(t))).toBe(
      'invalid remediation.noderepair.dev/v1alpha1 OpenStackRemediationTemplate: object.spec.template.spec.drain.timeoutSecond: unknown field "timeoutSecond" (did you mean "timeoutSeconds"?); known fields: enabled, timeoutSeconds, outOfServiceTaint',
    );
  });

  it('names unknown fields in list items and at the top, next to the type errors', () => {
    const msg = left(
      decodeOpenStackRemediation({
        apiVersion: 'remediation.noderepair.dev/v1alpha1',
        kind: 'OpenStackRemediation',
        metadata: { name: 'm', generateName: 'anything-goes-in-metadata' },
        spec: { steps: [{ type: 'HardReboot', retry: 2 }], minHealthySeconds: 'x' },
        stauts: {},
      }),
    );
    expect(msg).toContain(
      'object.spec.steps[0].retry: unknown field "retry" (did you mean "retries"?); known fields: type, timeoutSeconds, retries, imageRef',
    );
    expect(msg).toContain(
      'object.stauts: unknown field "stauts" (did you mean "status"?); known fields: apiVersion, kind, metadata, spec, status',
    );
    expect(msg).toContain('object.spec.minHealthySeconds: expected an integer');
    expect(msg).not.toContain('generateName');
  });

  it('labels and annotations of the template stay open maps', () => {
    const t = exampleRemediationTemplate();
    const labels: Record<string, string> = t.spec.template.metadata.labels;
    labels['any.example/key'] = 'v';
    expect(E.isRight(decodeOpenStackRemediationTemplate(t))).toBe(true);
  });

  it('Ignore drops them, as the apiserver prunes (the controller reads objects this way)', () => {
    const o = { ...exampleRemediation(), extra: true };
    expect(E.isLeft(decodeOpenStackRemediation(o))).toBe(true);
    expect(decodeOpenStackRemediation(o, { fieldValidation: 'Ignore' })).toEqual(
      E.right(exampleRemediation()),
    );
  });
});
