// Turns io-ts validation errors into one readable line per problem: the path of the field
// and what was expected, never a dump of the whole input (it may hold unrelated secrets).
import type * as t from 'io-ts';
import { expectedOf, failedType, refineError } from '../codec/expected.js';

function isCombinator(type: t.Decoder<unknown, unknown>): boolean {
  const tag = (type as { _tag?: string })._tag;
  return tag === 'IntersectionType' || tag === 'UnionType';
}

/** "spec.checks.unhealthyNodeConditions[0].type" style path of one error. */
export function errorPath(e: t.ValidationError): string {
  let path = '';
  e.context.forEach((c, i) => {
    if (c.key === '') return;
    const parent = e.context[i - 1];
    // io-ts numbers the members of unions and intersections; they are not part of the data.
    if (parent !== undefined && isCombinator(parent.type)) return;
    const parentTag = (parent?.type as { _tag?: string } | undefined)?._tag;
    path +=
      parentTag === 'ArrayType' && /^\d+$/.test(c.key)
        ? `[${c.key}]`
        : `${path === '' ? '' : '.'}${c.key}`;
  });
  return path;
}

export function formatValidationErrors(errors: t.Errors, root = ''): string {
  const lines = errors.map(refineError).map((e) => {
    const path = [root, errorPath(e)].filter((p) => p !== '').join('.');
    // Custom codecs (durations, timestamps) write their own message, naming what they got.
    if (e.message !== undefined) return `${path || '(root)'}: ${e.message}`;
    // An enum lists its values; a boolean or number where a string enum goes says to quote it.
    const { expected, got, hint } = expectedOf(failedType(e.context), e.value);
    const value = got ?? (e.value === undefined ? 'nothing' : short(e.value));
    return `${path || '(root)'}: ${expected}, got ${value}${hint === undefined ? '' : `; ${hint}`}`;
  });
  return [...new Set(lines)].join('; ');
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
