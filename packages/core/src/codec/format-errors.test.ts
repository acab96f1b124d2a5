import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { formatErrors } from './format-errors.js';

const errorsOf = <A>(c: t.Type<A, unknown, unknown>, u: unknown) => {
  const r = c.decode(u);
  return E.isLeft(r) ? formatErrors(r.left, 'doc') : [];
};

describe('formatErrors', () => {
  it('names nested fields and array indexes, and says what was expected', () => {
    const c = t.type({ a: t.type({ list: t.array(t.type({ n: t.number })) }) });
    expect(errorsOf(c, { a: { list: [{ n: 1 }, { n: 'x' }] } })).toEqual([
      'doc.a.list[1].n: expected number',
    ]);
  });

  it('reports a missing field as required', () => {
    expect(errorsOf(t.type({ name: t.string }), {})).toEqual(['doc.name: is required (string)']);
  });

  it('leaves union and intersection members out of the path and de-duplicates', () => {
    const c = t.intersection([
      t.type({ a: t.union([t.string, t.number]) }),
      t.partial({ b: t.boolean }),
    ]);
    expect(errorsOf(c, { a: true, b: 'no' })).toEqual([
      'doc.a: expected string',
      'doc.a: expected number',
      'doc.b: expected boolean',
    ]);
  });

  it('never prints the offending value', () => {
    const lines = errorsOf(t.type({ password: t.number }), { password: 'hunter2-secret' });
    expect(lines.join('\n')).not.toContain('hunter2-secret');
  });
});
