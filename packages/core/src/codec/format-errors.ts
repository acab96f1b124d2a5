// io-ts's PathReporter prints the offending value. Our inputs carry passwords and tokens, so
// this reporter names the field and what was expected and never prints a value.
import type * as t from 'io-ts';
import { expectedOf, failedType, refineError } from './expected.js';

type Tagged = { readonly _tag?: string };

function tagOf(type: t.Decoder<unknown, unknown>): string | undefined {
  return (type as Tagged)._tag;
}

function pathOf(err: t.ValidationError, root: string): string {
  let path = root;
  err.context.forEach((entry, i) => {
    if (i === 0 || entry.key === '') return;
    const parent = err.context[i - 1];
    const tag = parent ? tagOf(parent.type) : undefined;
    // Union and intersection members are keyed by their index; they are not fields.
    if (tag === 'UnionType' || tag === 'IntersectionType' || tag === 'RefinementType') return;
    const isArray =
      tag === 'ArrayType' ||
      tag === 'ReadonlyArrayType' ||
      (parent?.type.name.startsWith('Array<') ?? false);
    path += isArray ? `[${entry.key}]` : `.${entry.key}`;
  });
  return path;
}

/** One line per distinct failing field: `<root>.a.b: expected <type>`. */
export function formatErrors(errors: t.Errors, root = 'value'): string[] {
  const lines = new Set<string>();
  for (const raw of errors) {
    const e = refineError(raw);
    const last = e.context[e.context.length - 1];
    const { expected, got, hint } = expectedOf(failedType(e.context), e.value);
    // Never the value (it may be a secret): for a boolean or number where a string goes, its
    // kind, and the allowed value it stands for when there is one.
    const what =
      e.message ??
      (e.value === undefined
        ? `is required (${last ? last.type.name : 'a valid value'})`
        : `${expected}${got === undefined ? '' : `, got a ${typeof e.value}`}${hint === undefined ? '' : `; ${hint}`}`);
    lines.add(`${pathOf(e, root)}: ${what}`);
  }
  return [...lines];
}
