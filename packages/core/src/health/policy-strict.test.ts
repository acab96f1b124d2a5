// A typo in a policy must be an error naming the field, never a silently kept default:
// `stormGuard.maxUnhealty: 10%` used to leave the 40 % storm brake in force.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { either } from 'fp-ts';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { resolveRepairPolicy } from './policy.js';

const examplePolicy = YAML.parse(
  readFileSync(
    fileURLToPath(new URL('../../../../examples/traces/policy.yaml', import.meta.url)),
    'utf8',
  ),
) as Record<string, unknown>;

const left = (e: either.Either<string, unknown>): string => {
  if (either.isRight(e)) throw new Error('expected an error');
  return e.left;
};

type Path = (string | number)[];

/** Every object level of a value with its keys. */
function objectLevels(v: unknown, path: Path = []): Array<{ path: Path; keys: string[] }> {
  if (Array.isArray(v)) return v.flatMap((x, i) => objectLevels(x, [...path, i]));
  if (typeof v !== 'object' || v === null) return [];
  const o = v as Record<string, unknown>;
  return [
    { path, keys: Object.keys(o) },
    ...Object.keys(o).flatMap((k) => objectLevels(o[k], [...path, k])),
  ];
}

const render = (path: Path) =>
  path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '');

describe('repair policy: unknown fields', () => {
  it('a misspelt storm brake is an error naming the field, never the 40 % default', () => {
    const msg = left(resolveRepairPolicy({ stormGuard: { maxUnhealty: '10%' } }));
    // (The known-field list grows with the policy; its start is stable.)
    expect(msg).toMatch(
      /^invalid repair policy: stormGuard\.maxUnhealty: unknown field "maxUnhealty" \(did you mean "maxUnhealthy"\?\); known fields: maxUnhealthy, maxInFlight, minUnhealthyAllowed, failureDomainLabel, maxUnhealthyPerDomain, recheckInterval, cooldown/,
    );
  });

  it('names unknown fields at the top, in list items and in nested objects', () => {
    expect(left(resolveRepairPolicy({ dryrun: true }))).toContain(
      'dryrun: unknown field "dryrun" (did you mean "dryRun"?)',
    );
    expect(
      left(
        resolveRepairPolicy({
          ladder: [{ action: 'SoftReboot' }, { action: 'Replace', timout: '1h' }],
        }),
      ),
    ).toContain('ladder[1].timout: unknown field "timout" (did you mean "timeout"?)');
    expect(
      left(
        resolveRepairPolicy({
          unhealthyConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 60 }],
        }),
      ),
    ).toContain(
      'unhealthyConditions[0].timeoutSeconds: unknown field "timeoutSeconds" (did you mean "timeout"?)',
    );
    expect(left(resolveRepairPolicy({ drain: { enable: false } }))).toContain(
      'drain.enable: unknown field "enable" (did you mean "enabled"?)',
    );
  });

  it('the complete example policy is accepted', () => {
    expect(either.isRight(resolveRepairPolicy(examplePolicy))).toBe(true);
  });

  it('a misspelling of any real key at any level of the example is rejected with its path', () => {
    const levels = objectLevels(examplePolicy);
    const arb = fc
      .constantFrom(...levels.filter((l) => l.keys.length > 0))
      .chain((l) =>
        fc.tuple(
          fc.constant(l),
          fc.constantFrom(...l.keys),
          fc.nat(),
          fc.constantFrom('drop', 'swap', 'case', 'double'),
        ),
      )
      .map(([l, key, n, how]) => {
        const i = n % key.length;
        const typo =
          how === 'drop'
            ? key.slice(0, i) + key.slice(i + 1)
            : how === 'swap' && i + 1 < key.length
              ? key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2)
              : how === 'double'
                ? key.slice(0, i) + key[i] + key.slice(i)
                : key.slice(0, i) +
                  (key[i] === key[i]!.toUpperCase()
                    ? key[i]!.toLowerCase()
                    : key[i]!.toUpperCase()) +
                  key.slice(i + 1);
        return { l, key, typo };
      })
      .filter(({ l, typo }) => typo !== '' && !l.keys.includes(typo));
    fc.assert(
      fc.property(arb, ({ l, key, typo }) => {
        const doc = structuredClone(examplePolicy);
        const obj = l.path.reduce<unknown>(
          (o, k) => (o as Record<string | number, unknown>)[k],
          doc,
        ) as Record<string, unknown>;
        obj[typo] = obj[key];
        delete obj[key];
        const msg = left(resolveRepairPolicy(doc));
        expect(msg).toContain(
          `${render([...l.path, typo])}: unknown field "${typo}" (did you mean "${key}"?)`,
        );
      }),
      { numRuns: 200, seed: 20 },
    );
  });
});
