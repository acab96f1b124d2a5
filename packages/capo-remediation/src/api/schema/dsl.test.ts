import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { formatErrors } from '@noderepair/core/codec';
import * as s from './dsl.js';

const errs = <A>(n: s.Node<A>, u: unknown) => {
  const r = n.codec.decode(u);
  return E.isLeft(r) ? formatErrors(r.left, 'x') : [];
};

describe('schema DSL', () => {
  it('scalars carry their constraints into OpenAPI and the codec', () => {
    const n = s.integer({ minimum: 1, maximum: 3, description: 'd' });
    expect(n.openAPI()).toEqual({
      description: 'd',
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 3,
    });
    expect(errs(n, 0)).toEqual(['x: must be >= 1']);
    expect(errs(n, 4)).toEqual(['x: must be <= 3']);
    expect(errs(n, 1.5)).toEqual(['x: expected an integer']);
    expect(errs(n, 2)).toEqual([]);
    const str = s.string({ pattern: '^[a-z]+$', maxLength: 3 });
    expect(str.openAPI()).toEqual({ type: 'string', pattern: '^[a-z]+$', maxLength: 3 });
    expect(errs(str, 'abcd')).toEqual(['x: must be at most 3 characters']);
    expect(errs(str, 'A')).toEqual(['x: must match ^[a-z]+$']);
    const en = s.enumOf(['A', 'B'] as const);
    expect(en.openAPI()).toEqual({ type: 'string', enum: ['A', 'B'] });
    expect(errs(en, 'C')).toEqual(['x: must be one of A, B']);
    expect(errs(s.dateTime(), '2026-12-02')).toEqual(['x: must be an RFC 3339 date-time']);
  });

  it('objects: required, optional, defaults (nested too) and pruning', () => {
    const inner = s.object({ n: s.defaulted(s.integer(), 7) });
    const o = s.object({
      a: s.required(s.string()),
      b: s.optional(s.boolean()),
      c: s.defaultedToEmpty(inner),
    });
    expect(o.openAPI()).toEqual({
      type: 'object',
      required: ['a'],
      properties: {
        a: { type: 'string' },
        b: { type: 'boolean' },
        c: {
          type: 'object',
          default: {},
          properties: { n: { type: 'integer', format: 'int32', default: 7 } },
        },
      },
    });
    expect(o.codec.decode({ a: 'x', extra: 1 })).toEqual(E.right({ a: 'x', c: { n: 7 } }));
    expect(errs(o, { b: 'no' })).toEqual(['x.a: is required', 'x.b: expected a boolean']);
  });

  it('refuses a default that its own node would reject', () => {
    expect(() => s.defaulted(s.integer({ minimum: 5 }), 1)).toThrow(/not valid/);
    expect(() => s.defaultedToEmpty(s.object({ a: s.required(s.string()) }))).toThrow(/required/);
  });

  it('arrays: bounds, item paths and map keys', () => {
    const a = s.array(s.object({ k: s.required(s.string()) }), { maxItems: 2, mapKeys: ['k'] });
    expect(a.openAPI()).toMatchObject({
      type: 'array',
      maxItems: 2,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['k'],
    });
    expect(errs(a, [{ k: 'a' }, {}])).toEqual(['x[1].k: is required']);
    expect(errs(a, [{ k: 'a' }, { k: 'a' }])).toEqual(['x[1]: duplicate entry for key k']);
    expect(errs(a, [{ k: 'a' }, { k: 'b' }, { k: 'c' }])).toEqual(['x: must have at most 2 items']);
  });

  it('CEL rules appear in OpenAPI and their twin runs in the codec', () => {
    const o = s.object(
      { lo: s.required(s.integer()), hi: s.required(s.integer()) },
      {
        rules: [
          {
            rule: 'self.lo <= self.hi',
            message: 'lo must not exceed hi',
            check: (v) => v.lo <= v.hi,
          },
        ],
      },
    );
    expect(o.openAPI()['x-kubernetes-validations']).toEqual([
      { rule: 'self.lo <= self.hi', message: 'lo must not exceed hi' },
    ]);
    expect(errs(o, { lo: 2, hi: 1 })).toEqual(['x: lo must not exceed hi']);
    expect(errs(o, { lo: 1, hi: 2 })).toEqual([]);
  });

  it('openAPI() returns a fresh copy each time', () => {
    const n = s.object({ a: s.required(s.string()) });
    const first = n.openAPI();
    first.required?.push('b');
    expect(n.openAPI().required).toEqual(['a']);
  });
});
