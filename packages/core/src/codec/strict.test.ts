import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { formatErrors } from './format-errors.js';
import { shapeOf } from './shape.js';
import { decodeStrict, strict } from './strict.js';
import { closestName, formatUnknownField, unknownFields } from './unknown-fields.js';

const Guard = t.partial({ maxUnhealthy: t.union([t.number, t.string]), maxInFlight: t.number });
const Policy = t.partial({
  dryRun: t.boolean,
  ladder: t.array(
    t.intersection([
      t.type({ action: t.string }),
      t.partial({ timeout: t.string, image: t.string }),
    ]),
  ),
  stormGuard: Guard,
  labels: t.record(t.string, t.string),
  // io-ts requires every key of a record over a key set; undefined makes them optional.
  results: t.record(t.keyof({ SoftReboot: null, Rebuild: null }), t.union([t.string, t.undefined])),
});

const lines = <A, O>(c: t.Type<A, O, unknown>, u: unknown) => {
  const r = decodeStrict(c, u, 'policy');
  return E.isLeft(r) ? r.left : [];
};

describe('strict decoding', () => {
  it('names the unknown field, its path, the known fields and the likely spelling', () => {
    expect(lines(Policy, { stormGuard: { maxUnhealty: '10%' } })).toEqual([
      'policy.stormGuard.maxUnhealty: unknown field "maxUnhealty" (did you mean "maxUnhealthy"?); known fields: maxUnhealthy, maxInFlight',
    ]);
  });

  it('walks arrays, intersections and closed records; records over strings stay open', () => {
    const out = lines(Policy, {
      ladder: [{ action: 'SoftReboot' }, { action: 'Rebuild', imgae: 'x' }],
      labels: { anything: 'goes' },
      results: { Rebiuld: 'Failed' },
      dryrun: true,
    });
    expect(out).toEqual([
      'policy.ladder[1].imgae: unknown field "imgae" (did you mean "image"?); known fields: action, timeout, image',
      'policy.results.Rebiuld: unknown field "Rebiuld" (did you mean "Rebuild"?); known fields: SoftReboot, Rebuild',
      'policy.dryrun: unknown field "dryrun" (did you mean "dryRun"?); known fields: dryRun, ladder, stormGuard, labels, results',
    ]);
  });

  it('reports unknown fields together with the type errors, and decodes the same value otherwise', () => {
    expect(lines(Policy, { dryRun: 'yes', colour: 1 })).toEqual([
      'policy.colour: unknown field "colour"; known fields: dryRun, ladder, stormGuard, labels, results',
      'policy.dryRun: expected boolean',
    ]);
    const ok = { dryRun: true, ladder: [{ action: 'SoftReboot', timeout: '5m' }] };
    expect(strict(Policy).decode(ok)).toEqual(Policy.decode(ok));
  });

  it('keeps member indexes of a root intersection out of the type errors', () => {
    const Line = t.intersection([t.type({ time: t.string }), t.partial({ n: t.number })]);
    expect(lines(Line, { time: 1, n: 'x', m: 0 })).toEqual([
      'policy.m: unknown field "m"; known fields: time, n',
      'policy.time: expected string',
      'policy.n: expected number',
    ]);
  });

  it('checks a union against the member that decodes the value', () => {
    const Check = t.union([
      t.type({ type: t.literal('http'), url: t.string }),
      t.type({ type: t.literal('exec'), command: t.array(t.string) }),
    ]);
    expect(lines(Check, { type: 'http', url: 'u' })).toEqual([]);
    expect(lines(Check, { type: 'exec', command: [], url: 'u' })).toEqual([
      'policy.url: unknown field "url"; known fields: type, command',
    ]);
    // No member decodes it: the closest object member still names the typo.
    expect(lines(Check, { type: 'http', ulr: 'u' })[0]).toBe(
      'policy.ulr: unknown field "ulr" (did you mean "url"?); known fields: type, url',
    );
    expect(lines(t.union([t.string, t.number]), { a: 1 })).not.toContainEqual(
      expect.stringContaining('unknown field'),
    );
  });

  it('follows refinements, exact, readonly and recursive codecs', () => {
    interface Tree {
      name: string;
      kids?: Tree[];
    }
    const Tree: t.Type<Tree> = t.recursion('Tree', () =>
      t.intersection([t.type({ name: t.string }), t.partial({ kids: t.array(Tree) })]),
    );
    expect(
      lines(Tree, { name: 'a', kids: [{ name: 'b', kids: [{ name: 'c', kid: [] }] }] }),
    ).toEqual([
      'policy.kids[0].kids[0].kid: unknown field "kid" (did you mean "kids"?); known fields: name, kids',
    ]);
    const R = t.readonly(t.exact(t.type({ n: t.refinement(t.type({ m: t.number }), () => true) })));
    expect(lines(R, { n: { m: 1, x: 2 } })).toEqual([
      'policy.n.x: unknown field "x"; known fields: m',
    ]);
  });

  it('never prints a value, cuts long keys and survives cycles and odd objects', () => {
    const secret = 'Sup3r-Secret-Pw-9x7Q';
    const out = lines(t.type({ password: t.number }), {
      password: secret,
      ['k'.repeat(500)]: secret,
    });
    expect(out.join('\n')).not.toContain(secret);
    expect(out[0]).toMatch(/unknown field "k{57}\.\.\."/);
    const cyclic: Record<string, unknown> = { dryRun: true };
    cyclic['stormGuard'] = { maxInFlight: 1 };
    (cyclic['stormGuard'] as Record<string, unknown>)['self'] = cyclic;
    expect(unknownFields(shapeOf(Policy), cyclic).map((f) => f.path)).toEqual([
      ['stormGuard', 'self'],
    ]);
    const noProto = Object.assign(Object.create(null) as object, { __proto__x: 1 });
    expect(unknownFields(shapeOf(Policy), noProto).map((f) => f.field)).toEqual(['__proto__x']);
    expect(unknownFields(shapeOf(Policy), JSON.parse('{"__proto__": {"polluted": 1}}'))).toEqual([
      expect.objectContaining({ field: '__proto__' }),
    ]);
  });

  it('plays with formatErrors like any other io-ts error', () => {
    const r = strict(t.type({ a: t.array(t.type({ b: t.number })) })).decode({
      a: [{ b: 1, c: 2 }],
    });
    expect(E.isLeft(r) && formatErrors(r.left, 'doc')).toEqual([
      'doc.a[0].c: unknown field "c"; known fields: b',
    ]);
  });
});

describe('closestName', () => {
  const known = [
    'maxUnhealthy',
    'maxInFlight',
    'region_name',
    'auth_type',
    'cacert',
    'verify',
    'retries',
  ];
  it.each([
    ['maxUnhealty', 'maxUnhealthy'],
    ['maxunhealthy', 'maxUnhealthy'],
    ['max_in_flight', 'maxInFlight'],
    ['regoin_name', 'region_name'],
    ['region', 'region_name'],
    ['auth_typ', 'auth_type'],
    ['verify_ssl', 'verify'],
    ['retry', 'retries'],
  ])('%s -> %s', (typo, meant) => expect(closestName(typo, known)).toBe(meant));
  it.each(['colour', 'cert', 'key', 'x', 'networks'])('%s -> nothing', (far) =>
    expect(closestName(far, known)).toBeUndefined(),
  );
});

// ---- properties over generated codecs ------------------------------------------------------

const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'];

interface Gen {
  codec: t.Type<unknown, unknown, unknown>;
  /** A value using any subset of the known keys at every level. */
  value: fc.Arbitrary<unknown>;
}

const leaf: fc.Arbitrary<Gen> = fc.constantFrom<Gen>(
  { codec: t.string as t.Type<unknown, unknown, unknown>, value: fc.string() },
  { codec: t.number as t.Type<unknown, unknown, unknown>, value: fc.integer() },
);

const gen: fc.Arbitrary<Gen> = fc.letrec<{ node: Gen }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .tuple(
        fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }),
        fc.array(tie('node'), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
      )
      .map(([keys, kids, partial]): Gen => {
        const props = Object.fromEntries(keys.map((k, i) => [k, (kids[i] as Gen).codec]));
        const codec = (partial ? t.partial(props) : t.type(props)) as t.Type<
          unknown,
          unknown,
          unknown
        >;
        const value = fc.record(
          Object.fromEntries(keys.map((k, i) => [k, (kids[i] as Gen).value])),
          partial ? { requiredKeys: [] } : {},
        );
        return { codec, value };
      }),
    tie('node').map(
      (g): Gen => ({
        codec: t.array(g.codec) as t.Type<unknown, unknown, unknown>,
        value: fc.array(g.value, { maxLength: 3 }),
      }),
    ),
    tie('node').map(
      (g): Gen => ({
        codec: t.record(t.string, g.codec) as t.Type<unknown, unknown, unknown>,
        value: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), g.value, { maxKeys: 3 }),
      }),
    ),
    fc
      .tuple(fc.constantFrom(...KEYS), fc.constantFrom(...KEYS), tie('node'), tie('node'))
      .filter(([a, b]) => a !== b)
      .map(
        ([a, b, x, y]): Gen => ({
          codec: t.intersection([t.type({ [a]: x.codec }), t.partial({ [b]: y.codec })]) as t.Type<
            unknown,
            unknown,
            unknown
          >,
          value: fc.record({ [a]: x.value, [b]: y.value }, { requiredKeys: [a] }),
        }),
      ),
  ),
})).node;

/** Paths of the closed objects in a value decoded by `codec` (where a key may be inserted). */
function closedObjects(
  codec: t.Type<unknown, unknown, unknown>,
  value: unknown,
): (string | number)[][] {
  const out: (string | number)[][] = [];
  const visit = (
    c: t.Decoder<unknown, unknown> & { _tag?: string },
    v: unknown,
    path: (string | number)[],
  ) => {
    const any = c as unknown as {
      props?: t.Props;
      type?: t.Decoder<unknown, unknown>;
      types?: t.Decoder<unknown, unknown>[];
      codomain?: t.Decoder<unknown, unknown>;
    };
    if (c._tag === 'InterfaceType' || c._tag === 'PartialType' || c._tag === 'IntersectionType') {
      if (typeof v !== 'object' || v === null) return;
      out.push(path);
      const props =
        c._tag === 'IntersectionType'
          ? (Object.assign(
              {},
              ...(any.types ?? []).map((m) => (m as unknown as { props: t.Props }).props),
            ) as t.Props)
          : (any.props ?? {});
      for (const [k, p] of Object.entries(props))
        if (k in (v as object)) visit(p, (v as Record<string, unknown>)[k], [...path, k]);
    } else if (c._tag === 'ArrayType' && Array.isArray(v))
      v.forEach((x, i) => visit(any.type!, x, [...path, i]));
    else if (c._tag === 'DictionaryType' && typeof v === 'object' && v !== null)
      for (const [k, x] of Object.entries(v)) visit(any.codomain!, x, [...path, k]);
  };
  visit(codec, value, []);
  return out;
}

describe('strict decoding (properties)', () => {
  it('accepts every known field at every level', () => {
    fc.assert(
      fc.property(
        gen.chain((g) => g.value.map((v) => [g.codec, v] as const)),
        ([codec, v]) => {
          expect(unknownFields(shapeOf(codec), v)).toEqual([]);
          expect(strict(codec).decode(v)).toEqual(codec.decode(v));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any other key at any closed level, with its path', () => {
    const arb = gen
      .chain((g) => g.value.map((v) => ({ codec: g.codec, v, at: closedObjects(g.codec, v) })))
      .filter((x) => x.at.length > 0)
      .chain((x) =>
        fc
          .tuple(fc.constantFrom(...x.at), fc.string({ minLength: 1, maxLength: 12 }))
          .map(([at, key]) => ({ ...x, path: at, key })),
      );
    fc.assert(
      fc.property(arb, ({ codec, v, path, key }) => {
        const target = path.reduce<unknown>(
          (o, k) => (o as Record<string | number, unknown>)[k],
          v,
        ) as Record<string, unknown>;
        fc.pre(!Object.prototype.hasOwnProperty.call(target, key) && !KEYS.includes(key));
        const mutated = structuredClone(v);
        const into = path.reduce<unknown>(
          (o, k) => (o as Record<string | number, unknown>)[k],
          mutated,
        ) as Record<string, unknown>;
        Object.defineProperty(into, key, {
          value: 1,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        const found = unknownFields(shapeOf(codec), mutated);
        expect(found).toEqual([expect.objectContaining({ path: [...path, key], field: key })]);
        const r = strict(codec).decode(mutated);
        expect(E.isLeft(r)).toBe(true);
        expect(formatUnknownField(found[0]!, 'doc')).toContain('unknown field');
      }),
      { numRuns: 300 },
    );
  });
});
