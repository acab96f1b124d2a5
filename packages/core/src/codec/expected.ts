// What an error says was expected. For an enum (t.keyof, or a union of t.literal) that is the
// list of allowed values, not the codec's name: "expected one of SoftReboot, HardReboot, ...".
// A boolean or number where a string enum was expected is almost always YAML reading an
// unquoted word (`status: False` is the boolean false), so that error says to quote it.
import type * as t from 'io-ts';

type Tagged = { readonly _tag?: string };
type Literal = string | number | boolean;

const tagOf = (type: t.Decoder<unknown, unknown>): string | undefined => (type as Tagged)._tag;

/** The values an enum codec allows, or undefined when the codec is not an enum. */
export function enumValues(type: t.Decoder<unknown, unknown>): readonly Literal[] | undefined {
  if (tagOf(type) === 'KeyofType') return Object.keys((type as unknown as { keys: object }).keys);
  if (tagOf(type) === 'UnionType') {
    const members = (type as unknown as { types: readonly t.Decoder<unknown, unknown>[] }).types;
    const values = members.map((m) =>
      tagOf(m) === 'LiteralType' ? (m as unknown as { value: Literal }).value : undefined,
    );
    return values.every((v) => v !== undefined) ? values : undefined;
  }
  return undefined;
}

/**
 * The codec io-ts reports a failure against, with a union of literals reported as the union (io-ts
 * names the last literal it tried, e.g. "y", where the user needs to see x and y).
 */
export function failedType(context: t.Context): t.Decoder<unknown, unknown> | undefined {
  const last = context[context.length - 1]?.type;
  const parent = context[context.length - 2]?.type;
  if (
    last !== undefined &&
    parent !== undefined &&
    tagOf(last) === 'LiteralType' &&
    tagOf(parent) === 'UnionType' &&
    enumValues(parent) !== undefined
  ) {
    return parent;
  }
  return last;
}

/**
 * "expected ..." for a failure of `type` on `value`, and what to do when YAML probably changed the
 * value's type (never the value itself: callers that may print values add it).
 */
export function expectedOf(
  type: t.Decoder<unknown, unknown> | undefined,
  value: unknown,
): { readonly expected: string; readonly hint?: string } {
  const values = type === undefined ? undefined : enumValues(type);
  if (values === undefined) return { expected: `expected ${type?.name ?? 'a valid value'}` };
  const allStrings = values.every((v) => typeof v === 'string');
  if (allStrings && (typeof value === 'boolean' || typeof value === 'number')) {
    const quoted = values.map((v) => JSON.stringify(v));
    const list =
      quoted.length === 1
        ? quoted[0]
        : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
    return { expected: `expected the string ${list}`, hint: 'quote it in YAML' };
  }
  return { expected: `expected one of ${values.map(String).join(', ')}` };
}
