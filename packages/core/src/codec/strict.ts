// strict(codec): the same codec, but a key the codec does not know is a validation error at
// its path (`stormGuard.maxUnhealty: unknown field "maxUnhealty" (did you mean
// "maxUnhealthy"?); known fields: ...`) instead of being ignored. Wrap the codec that reads a
// user's document once, at its root: nested levels are checked from the codec's shape, so a
// field added to the codec later is covered without touching this.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from './format-errors.js';
import { shapeOf, withShape } from './shape.js';
import {
  unknownFieldMessage,
  unknownFields,
  type PathSegment,
  type UnknownField,
} from './unknown-fields.js';

// Context entries only carry the path: the reporters (formatErrors, overlayfs-gen's, health's)
// print `[i]` below an ArrayType and `.key` below anything else, and skip empty keys.
const ARRAY_LEVEL = t.array(t.unknown);
const OBJECT_LEVEL = t.UnknownRecord;

function levelType(next: PathSegment | undefined): t.Decoder<unknown, unknown> {
  return typeof next === 'number' ? ARRAY_LEVEL : OBJECT_LEVEL;
}

/** An unknown field as an io-ts error whose context is its path below `context`. */
export function unknownFieldError(f: UnknownField, context: t.Context): t.ValidationError {
  // A neutral first entry, so the path does not hang off a union or intersection (whose
  // member indexes the reporters skip).
  const entries: t.ContextEntry[] = [
    { key: '', type: levelType(f.path[0]) as t.Decoder<unknown, unknown>, actual: undefined },
  ];
  f.path.forEach((seg, i) => {
    entries.push({ key: String(seg), type: levelType(f.path[i + 1]), actual: undefined });
  });
  return { value: undefined, context: [...context, ...entries], message: unknownFieldMessage(f) };
}

/** The codec with unknown keys rejected at every level; the decoded value is unchanged. */
export function strict<A, O>(
  codec: t.Type<A, O, unknown>,
  name: string = codec.name,
): t.Type<A, O, unknown> {
  const shape = shapeOf(codec);
  const checked = new t.Type<A, O, unknown>(
    name,
    codec.is,
    (u, c) => {
      // The wrapped codec stands in its own context entry, so reporters still see an
      // intersection or union there (and leave its member indexes out of paths).
      const last = c[c.length - 1];
      const inner = last === undefined ? c : [...c.slice(0, -1), { ...last, type: codec }];
      const base = codec.validate(u, inner);
      const unknown = unknownFields(shape, u).map((f) => unknownFieldError(f, c));
      if (unknown.length === 0) return base;
      return t.failures(E.isLeft(base) ? [...unknown, ...base.left] : unknown);
    },
    codec.encode,
  );
  return withShape(checked, shape);
}

/** Strict decoding with formatErrors' lines (`root.a.b: ...`, never a value). */
export function decodeStrict<A, O>(
  codec: t.Type<A, O, unknown>,
  input: unknown,
  root = 'value',
): E.Either<string[], A> {
  const r = strict(codec).decode(input);
  return E.isLeft(r) ? E.left(formatErrors(r.left, root)) : r;
}
