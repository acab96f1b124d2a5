// A misspelt field in an OpenStackRemediation(Template) a person wrote is an error naming it;
// only objects read back from the apiserver (already pruned) are decoded leniently.
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { exampleRemediation, exampleRemediationTemplate } from './examples.js';
import { decodeOpenStackRemediation } from './openstack-remediation.js';
import { decodeOpenStackRemediationTemplate } from './openstack-remediation-template.js';
import { kindDecoder } from './field-validation.js';
import { s } from './schema/index.js';

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

// Enum errors list what is allowed (issue 47), and a YAML boolean or number where a string enum
// goes says so and what to write (core's rule; these errors never print a value).
describe('enum errors in a template a person wrote', () => {
  const withStep = (step: Record<string, unknown>) => {
    const t = exampleRemediationTemplate() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    t.spec.template.spec.steps = [step];
    return left(decodeOpenStackRemediationTemplate(t));
  };
  const prefix =
    'invalid remediation.noderepair.dev/v1alpha1 OpenStackRemediationTemplate: object.spec.template.spec.steps[0].type: ';

  it('a step type that is not one of them lists the allowed ones', () => {
    expect(withStep({ type: 'Reboot' })).toBe(`${prefix}must be one of SoftReboot, HardReboot, Rebuild`);
  });

  it('a boolean or number (unquoted YAML) says so', () => {
    expect(withStep({ type: true })).toBe(
      `${prefix}must be one of SoftReboot, HardReboot, Rebuild, got a boolean`,
    );
    expect(withStep({ type: 1 })).toBe(
      `${prefix}must be one of SoftReboot, HardReboot, Rebuild, got a number`,
    );
  });

  it('a condition status that YAML read as a boolean: quote it, and how', () => {
    const status = s.object({
      status: s.required(s.enumOf(['True', 'False', 'Unknown'] as const)),
    });
    const r = kindDecoder('Probe', status.codec)({ status: false });
    expect(left(r)).toBe(
      'invalid remediation.noderepair.dev/v1alpha1 Probe: object.status: must be one of True, False, Unknown, got a boolean; quote it: "False"',
    );
  });
});

// retries counts the tries after the first, core's ladder[].attempts every try (issue 47): an
// error about a bad value says which, whatever is wrong with it.
describe('an error about retries says what it counts', () => {
  const meaning =
    "the further tries of this step after the first, before the next step (retries: 2 tries it 3 times in all; noderepair's ladder[].attempts counts the first try too)";
  const withRetries = (retries: unknown) => {
    const t = exampleRemediationTemplate() as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    t.spec.template.spec.steps = [{ type: 'HardReboot', retries }];
    return left(decodeOpenStackRemediationTemplate(t));
  };
  const prefix =
    'invalid remediation.noderepair.dev/v1alpha1 OpenStackRemediationTemplate: object.spec.template.spec.steps[0].retries: ';

  it.each([
    [11, 'must be <= 10'],
    [-1, 'must be >= 0'],
    ['2', 'expected an integer'],
  ])('retries: %j', (retries, what) => {
    expect(withRetries(retries)).toBe(`${prefix}${what}: ${meaning}`);
  });
});
