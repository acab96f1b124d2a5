// What an error says was expected. For an enum (t.keyof, or a union of t.literal) that is the
// list of allowed values, not the codec's name: "expected one of SoftReboot, HardReboot, ...".
// A boolean or number where a string enum was expected is almost always YAML reading an
// unquoted word (`status: False` is the boolean false), so that error says to quote it, and
// how. Every reporter (formatErrors, health's formatValidationErrors, overlayfs-gen's
// decodeErrors) goes through refineError and expectedOf, so each says the same.
import * as t from 'io-ts';

type Tagged = { readonly _tag?: string };
type Literal = string | number | boolean;

const tagOf = (type: t.Decoder<unknown, unknown>): string | undefined => (type as Tagged)._tag;

/** The values an enum codec allows, or undefined when the codec is not an enum. */
export function enumValues(
  type: t.Decoder<unknown, unknown>,
): readonly (string | number | boolean)[] | undefined {
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

/** The discriminant of a tagged union of objects (`type` of `{type: 'http', ...} | ...`) and its values. */
function unionTag(
  type: t.Decoder<unknown, unknown>,
): { readonly tag: string; readonly values: readonly Literal[] } | undefined {
  const u = type as unknown as { tag?: unknown; types?: readonly t.Mixed[] };
  if (tagOf(type) !== 'UnionType' || typeof u.tag !== 'string' || u.types === undefined) {
    return undefined;
  }
  const values = u.types.map((m) => tagValues(m, u.tag as string));
  if (values.some((v) => v.length === 0)) return undefined;
  return { tag: u.tag, values: values.flat() };
}

/** The literal values `codec` takes at key `tag` (as io-ts finds a tagged union's tags). */
function tagValues(codec: t.Decoder<unknown, unknown>, tag: string): readonly Literal[] {
  const c = codec as unknown as {
    props?: Record<string, t.Decoder<unknown, unknown>>;
    type?: t.Decoder<unknown, unknown>;
    types?: readonly t.Decoder<unknown, unknown>[];
  };
  switch (tagOf(codec)) {
    case 'InterfaceType':
    case 'StrictType': {
      const prop = c.props?.[tag];
      return prop !== undefined && tagOf(prop) === 'LiteralType'
        ? [(prop as unknown as { value: Literal }).value]
        : [];
    }
    case 'ExactType':
    case 'RefinementType':
    case 'ReadonlyType':
      return c.type === undefined ? [] : tagValues(c.type, tag);
    case 'IntersectionType':
      return (c.types ?? []).flatMap((m) => tagValues(m, tag));
    case 'UnionType': {
      const each = (c.types ?? []).map((m) => tagValues(m, tag));
      return each.some((v) => v.length === 0) ? [] : each.flat();
    }
    default:
      return [];
  }
}

/**
 * The error as a person needs it. io-ts reports a tagged union whose tag has a value no member
 * takes (`check: {type: htp, url: ...}`) against the whole object ("expected HealthCheck, got
 * {...}"); this moves it to the tag, as an enum of the members' tags (`check.type: expected one of
 * http, crictl, exec`). Other errors are returned as they are.
 */
export function refineError(e: t.ValidationError): t.ValidationError {
  const last = e.context[e.context.length - 1];
  if (e.message !== undefined || last === undefined) return e;
  const tagged = unionTag(last.type);
  const value: unknown = e.value;
  if (tagged === undefined) return e;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    // Not an object at all (`check: http`): name the shape, not the union's type name.
    const shape = `an object with ${tagged.tag}: one of ${tagged.values.map(String).join(', ')}`;
    const named: t.Decoder<unknown, unknown> = {
      name: shape,
      validate: (u, c) => last.type.validate(u, c),
      decode: (u) => last.type.decode(u),
    };
    return { ...e, context: [...e.context.slice(0, -1), { ...last, type: named }] };
  }
  const tagValue = (value as Record<string, unknown>)[tagged.tag];
  const tagType = t.union(
    tagged.values.map((v) => t.literal(v)) as unknown as [t.Mixed, t.Mixed, ...t.Mixed[]],
    `one of ${tagged.values.map(String).join(', ')}`,
  );
  return {
    value: tagValue,
    context: [
      ...e.context,
      // A neutral level, so reporters do not take the tag for a union member's index.
      { key: '', type: t.UnknownRecord, actual: value },
      { key: tagged.tag, type: tagType, actual: tagValue },
    ],
  };
}

/**
 * "expected ..." for a failure of `type` on `value`, and what to do when YAML probably changed the
 * value's type: `got` (the boolean false, the number 1) and `hint` (quote it: "False"; never the
 * value itself, only an allowed value it stands for: callers that may print values add them).
 */
export function expectedOf(
  type: t.Decoder<unknown, unknown> | undefined,
  value: unknown,
): { readonly expected: string; readonly got?: string; readonly hint?: string } {
  const values = type === undefined ? undefined : enumValues(type);
  if (values === undefined) return { expected: `expected ${type?.name ?? 'a valid value'}` };
  const allStrings = values.every((v) => typeof v === 'string');
  if (allStrings && (typeof value === 'boolean' || typeof value === 'number')) {
    const quoted = values.map((v) => JSON.stringify(v));
    const list =
      quoted.length === 1
        ? quoted[0]
        : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
    // YAML reads True, TRUE and true alike as the boolean true: the allowed value it stands for.
    const meant = values.find((v) => String(v).toLowerCase() === String(value).toLowerCase());
    return {
      expected: `expected the string ${list}`,
      got: `the ${typeof value} ${String(value)}`,
      ...(meant === undefined ? {} : { hint: `quote it: ${JSON.stringify(meant)}` }),
    };
  }
  return { expected: `expected one of ${values.map(String).join(', ')}` };
}
