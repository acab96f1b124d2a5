// Enum errors list what is allowed (issue 47): a user who wrote `action: Reboot` or an unquoted
// `status: False` (YAML reads it as the boolean false) learns what to write instead.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { resolveRepairPolicy } from '../health/policy.js';
import { formatErrors } from './format-errors.js';

const policyError = (yaml: string): string => {
  const r = resolveRepairPolicy(parse(yaml));
  return E.isLeft(r) ? r.left : '(accepted)';
};

describe('enum errors list the allowed values', () => {
  it('a ladder action that is not one of the steps', () => {
    expect(policyError('ladder: [{action: Reboot}]')).toBe(
      'invalid repair policy: ladder[0].action: expected one of SoftReboot, HardReboot, Rebuild, Replace, Command, Webhook, got "Reboot"',
    );
  });

  it('an unquoted condition status, which YAML reads as a boolean: say to quote it', () => {
    expect(policyError('unhealthyConditions: [{type: Ready, status: False}]')).toBe(
      'invalid repair policy: unhealthyConditions[0].status: expected the string "True", "False" or "Unknown", got false; quote it in YAML',
    );
    expect(policyError('unhealthyConditions: [{type: Ready, status: Maybe}]')).toBe(
      'invalid repair policy: unhealthyConditions[0].status: expected one of True, False, Unknown, got "Maybe"',
    );
  });

  it('formatErrors (no values printed) lists them too, for t.keyof and unions of literals', () => {
    const c = t.type({
      a: t.keyof({ On: null, Off: null }),
      b: t.union([t.literal('x'), t.literal('y')]),
    });
    const r = c.decode({ a: true, b: 'z' });
    expect(E.isLeft(r) && formatErrors(r.left, 'doc')).toEqual([
      'doc.a: expected the string "On" or "Off"; quote it in YAML',
      'doc.b: expected one of x, y',
    ]);
  });
});
