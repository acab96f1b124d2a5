// Derives invalid variants of a valid object from its OpenAPI schema: for every field the
// object holds, one change per constraint (type, enum, bounds, lengths, items, required).
// Tests feed them to the io-ts codec and to a real kube-apiserver and expect both to reject
// each one naming the same field: the proof that the two halves of a schema node agree.
import type { JSONSchemaProps } from './openapi.js';

/** One invalid variant of a valid object: a single field changed to break one constraint. */
export interface Violation {
  /** Field path as the apiserver prints it: spec.steps[0].retries */
  readonly path: string;
  /** The schema keyword broken, e.g. `maximum`, `enum`, `required`, `type`. */
  readonly constraint: string;
  /** A deep copy of the object with the one change. */
  readonly value: unknown;
}

type Json = unknown;

function setAt(root: Json, path: readonly (string | number)[], v: Json | undefined): Json {
  const copy = structuredClone(root) as Record<string | number, Json>;
  let cur = copy;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (v === undefined) delete cur[last];
  else cur[last] = v;
  return copy;
}

function show(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${k}` : k),
    '',
  );
}

function wrongType(s: JSONSchemaProps): Json {
  return s.type === 'string' ? 42 : 'not-a-' + (s.type ?? 'value');
}

/**
 * FOR TESTS: one invalid variant of `valid` per constraint of each field it holds, derived from
 * `schema`. Paths for which `skip` returns true are left out (e.g. constraints only CEL checks).
 */
export function violations(
  schema: JSONSchemaProps,
  valid: Json,
  skip: (path: string) => boolean = () => false,
): Violation[] {
  const out: Violation[] = [];
  const walk = (s: JSONSchemaProps, v: Json, path: (string | number)[]) => {
    const p = show(path);
    const add = (constraint: string, bad: Json | undefined, at = path, shown = p) => {
      if (!skip(shown)) out.push({ path: shown, constraint, value: setAt(valid, at, bad) });
    };
    if (path.length > 0 && s.type && !s['x-kubernetes-preserve-unknown-fields'])
      add('type', wrongType(s));
    if (s.enum) add('enum', 'NotOneOfTheValues');
    if (s.type === 'integer') {
      if (s.minimum !== undefined) add('minimum', s.minimum - 1);
      if (s.maximum !== undefined) add('maximum', s.maximum + 1);
    }
    if (s.type === 'string') {
      if (s.maxLength !== undefined && s.maxLength <= 2048)
        add('maxLength', 'x'.repeat(s.maxLength + 1));
      if (s.minLength !== undefined && s.minLength > 0) add('minLength', '');
      if (s.format === 'date-time') add('format', 'yesterday');
    }
    if (s.type === 'array' && Array.isArray(v)) {
      if (s.maxItems !== undefined && v.length > 0)
        add(
          'maxItems',
          Array.from({ length: s.maxItems + 1 }, () => v[0]),
        );
      if (s.minItems !== undefined && s.minItems > 0) add('minItems', []);
      if (s.items) v.forEach((item, i) => walk(s.items as JSONSchemaProps, item, [...path, i]));
    }
    if (s.type === 'object' && s.properties && v !== null && typeof v === 'object') {
      const obj = v as Record<string, Json>;
      for (const r of s.required ?? []) {
        if (r in obj) add('required', undefined, [...path, r], show([...path, r]));
      }
      for (const [k, sub] of Object.entries(s.properties)) {
        if (k in obj) walk(sub, obj[k], [...path, k]);
      }
    }
  };
  walk(schema, valid, []);
  return out;
}
