// Enum errors list what is allowed (issue 47): a user who wrote `action: Reboot` or an unquoted
// `status: False` (YAML reads it as the boolean false) learns what to write instead.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatValidationErrors } from '../health/errors.js';
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

  it('an unquoted condition status, which YAML reads as a boolean: say to quote it, and how', () => {
    expect(policyError('unhealthyConditions: [{type: Ready, status: False}]')).toBe(
      'invalid repair policy: unhealthyConditions[0].status: expected the string "True", "False" or "Unknown", got the boolean false; quote it: "False"',
    );
    // YAML reads TRUE as true too; the allowed value it stands for is True.
    expect(policyError('unhealthyConditions: [{type: Ready, status: TRUE}]')).toBe(
      'invalid repair policy: unhealthyConditions[0].status: expected the string "True", "False" or "Unknown", got the boolean true; quote it: "True"',
    );
    // A number that stands for no allowed value: no quoting advice (quoting it would not help).
    expect(policyError('unhealthyConditions: [{type: Ready, status: 1}]')).toBe(
      'invalid repair policy: unhealthyConditions[0].status: expected the string "True", "False" or "Unknown", got the number 1',
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
      'doc.a: expected the string "On" or "Off", got a boolean',
      'doc.b: expected one of x, y',
    ]);
    const status = t
      .type({ status: t.keyof({ True: null, False: null }) })
      .decode({ status: false });
    expect(E.isLeft(status) && formatErrors(status.left, 'doc')).toEqual([
      'doc.status: expected the string "True" or "False", got a boolean; quote it: "False"',
    ]);
  });

  // io-ts reports a tagged union whose tag no member takes against the whole object
  // ("expected Check, got {...}"); the reporters name the tag and its allowed values instead.
  it("the tag of a tagged union of objects: named, with the members' tags", () => {
    const Check = t.union(
      [
        t.type({ type: t.literal('http'), url: t.string }),
        t.type({ type: t.literal('exec'), command: t.array(t.string) }),
      ],
      'Check',
    );
    const c = t.type({ checks: t.array(Check) });
    const r = c.decode({ checks: [{ type: 'htp', url: 'u' }, { url: 'u' }, { type: true }] });
    expect(E.isLeft(r) && formatErrors(r.left, 'doc')).toEqual([
      'doc.checks[0].type: expected one of http, exec',
      'doc.checks[1].type: is required (one of http, exec)',
      'doc.checks[2].type: expected the string "http" or "exec", got a boolean',
    ]);
    expect(E.isLeft(r) && formatValidationErrors(r.left)).toBe(
      'checks[0].type: expected one of http, exec, got "htp"; checks[1].type: expected one of http, exec, got nothing; checks[2].type: expected the string "http" or "exec", got the boolean true',
    );
    // A member's own field, once the tag is known: io-ts's error, unchanged.
    const url = c.decode({ checks: [{ type: 'http' }] });
    expect(E.isLeft(url) && formatErrors(url.left, 'doc')).toEqual([
      'doc.checks[0].url: is required (string)',
    ]);
  });
});
