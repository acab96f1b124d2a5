// A tiny schema DSL: every node knows its OpenAPI v3 form (for the CRD) and its io-ts codec
// (for the controller), so the two cannot drift. Codecs check what the apiserver checks
// (types, enums, patterns, bounds, required fields, CEL rules through a TypeScript twin),
// apply the same defaults, and drop unknown fields as structural pruning does. Each codec also
// carries its key shape (core's withShape), so core's strict() can reject the unknown fields of
// a document a user wrote, where pruning would silently drop a misspelt field.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import {
  arrayShape,
  expectedOf,
  objectShape,
  recordShape,
  shapeOf,
  withShape,
} from '@noderepair/core/codec';
import type { JSONSchemaProps, ValidationRule } from './openapi.js';

/**
 * A schema node: one definition of a value's type, from which both the CRD's OpenAPI schema and
 * the io-ts codec come, so the two cannot drift.
 */
export interface Node<A> {
  /** Decodes as the API server would: validates, applies defaults, drops unknown fields. */
  readonly codec: t.Type<A, unknown, unknown>;
  /** The node's OpenAPI v3 schema; a fresh copy on each call. */
  openAPI(): JSONSchemaProps;
}

/** The TypeScript type a schema node decodes to. */
export type TypeOf<N> = N extends Node<infer A> ? A : never;

interface Common {
  /** The field's description in the CRD (shown by `kubectl explain`). */
  readonly description?: string;
}

function withCommon(p: JSONSchemaProps, c: Common): JSONSchemaProps {
  return c.description ? { description: c.description, ...p } : p;
}

function node<A>(
  name: string,
  props: JSONSchemaProps,
  validate: (u: unknown, c: t.Context) => t.Validation<A>,
): Node<A> {
  const codec = new t.Type<A, unknown, unknown>(
    name,
    (u): u is A => E.isRight(validate(u, [{ key: '', type: codec, actual: u }])),
    validate,
    (a) => a,
  );
  return { codec, openAPI: () => structuredClone(props) };
}

// ---- scalars ---------------------------------------------------------------------------

/** Constraints of a string node; lengths count characters (code points), as the API server does. */
export interface StringOptions extends Common {
  /** Regular expression the whole value must match (anchor it with ^ and $). */
  readonly pattern?: string;
  /** Fewest characters allowed. */
  readonly minLength?: number;
  /** Most characters allowed. */
  readonly maxLength?: number;
  /** `date-time`: an RFC 3339 timestamp. */
  readonly format?: 'date-time';
}

/** A string node with the given constraints. */
export function string(o: StringOptions = {}): Node<string> {
  const re = o.pattern === undefined ? undefined : new RegExp(o.pattern, 'u');
  const props = withCommon(
    {
      type: 'string',
      ...(o.format ? { format: o.format } : {}),
      ...(o.pattern !== undefined ? { pattern: o.pattern } : {}),
      ...(o.minLength !== undefined ? { minLength: o.minLength } : {}),
      ...(o.maxLength !== undefined ? { maxLength: o.maxLength } : {}),
    },
    o,
  );
  return node<string>('string', props, (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected a string');
    const len = [...u].length;
    if (o.minLength !== undefined && len < o.minLength)
      return t.failure(u, c, `must be at least ${o.minLength} characters`);
    if (o.maxLength !== undefined && len > o.maxLength)
      return t.failure(u, c, `must be at most ${o.maxLength} characters`);
    if (re && !re.test(u)) return t.failure(u, c, `must match ${o.pattern}`);
    if (
      o.format === 'date-time' &&
      !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(u)
    ) {
      return t.failure(u, c, 'must be an RFC 3339 date-time');
    }
    return t.success(u);
  });
}

/** A string node holding an RFC 3339 timestamp (format date-time). */
export function dateTime(o: Common = {}): Node<string> {
  return string({ ...o, format: 'date-time' });
}

/** A string node that accepts only the given values. */
export function enumOf<const V extends readonly [string, ...string[]]>(
  values: V,
  o: Common = {},
): Node<V[number]> {
  const allowed = new Set<string>(values);
  const asKeyof = t.keyof(Object.fromEntries(values.map((v) => [v, null])));
  return node<V[number]>(
    values.join(' | '),
    withCommon({ type: 'string', enum: [...values] }, o),
    (u, c) => {
      if (typeof u === 'string' && allowed.has(u)) return t.success(u as V[number]);
      // A YAML boolean or number (an unquoted True): its kind, and what to write (core's rule;
      // never the value itself, as every error here).
      const { got, hint } = expectedOf(asKeyof, u);
      return t.failure(
        u,
        c,
        `must be one of ${values.join(', ')}${got === undefined ? '' : `, got a ${typeof u}`}${hint === undefined ? '' : `; ${hint}`}`,
      );
    },
  );
}

/** Constraints of an integer node. */
export interface IntegerOptions extends Common {
  /** Smallest value allowed (inclusive). */
  readonly minimum?: number;
  /** Largest value allowed (inclusive). */
  readonly maximum?: number;
  /** The schema's format (default int32); the codec does not check the range it implies. */
  readonly format?: 'int32' | 'int64';
  /**
   * What the number means, added to every error about a bad value (not to the schema), where a
   * person could take it for something else: `retries`, the tries after the first.
   */
  readonly meaning?: string;
}

/** An integer node (a JSON number without fraction) with the given bounds. */
export function integer(o: IntegerOptions = {}): Node<number> {
  const props = withCommon(
    {
      type: 'integer',
      format: o.format ?? 'int32',
      ...(o.minimum !== undefined ? { minimum: o.minimum } : {}),
      ...(o.maximum !== undefined ? { maximum: o.maximum } : {}),
    },
    o,
  );
  const fail = (u: unknown, c: t.Context, what: string) =>
    t.failure<number>(u, c, o.meaning === undefined ? what : `${what}: ${o.meaning}`);
  return node<number>('integer', props, (u, c) => {
    if (typeof u !== 'number' || !Number.isInteger(u)) return fail(u, c, 'expected an integer');
    if (o.minimum !== undefined && u < o.minimum) return fail(u, c, `must be >= ${o.minimum}`);
    if (o.maximum !== undefined && u > o.maximum) return fail(u, c, `must be <= ${o.maximum}`);
    return t.success(u);
  });
}

/** A boolean node. */
export function boolean(o: Common = {}): Node<boolean> {
  return node<boolean>('boolean', withCommon({ type: 'boolean' }, o), (u, c) =>
    typeof u === 'boolean' ? t.success(u) : t.failure(u, c, 'expected a boolean'),
  );
}

/** A map of strings (labels, annotations). */
export function stringMap(o: Common = {}): Node<Record<string, string>> {
  const n = node<Record<string, string>>(
    'map<string,string>',
    withCommon({ type: 'object', additionalProperties: { type: 'string' } }, o),
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u))
        return t.failure(u, c, 'expected an object');
      for (const [k, v] of Object.entries(u))
        if (typeof v !== 'string')
          return t.failure(v, t.appendContext(c, k, t.string, v), 'expected a string');
      return t.success(u as Record<string, string>);
    },
  );
  withShape(n.codec, recordShape());
  return n;
}

/** Any object, kept as it is (x-kubernetes-preserve-unknown-fields). */
export function unknownObject(o: Common = {}): Node<Record<string, unknown>> {
  return node(
    'object',
    withCommon({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, o),
    (u, c) =>
      typeof u === 'object' && u !== null && !Array.isArray(u)
        ? t.success(u as Record<string, unknown>)
        : t.failure(u, c, 'expected an object'),
  );
}

// ---- arrays ----------------------------------------------------------------------------

/** Constraints of an array node. */
export interface ArrayOptions extends Common {
  /** Fewest items allowed. */
  readonly minItems?: number;
  /** Most items allowed. */
  readonly maxItems?: number;
  /** listType map: merge by these keys (server-side apply), which must be unique. */
  readonly mapKeys?: readonly string[];
  /** x-kubernetes-list-type when there are no mapKeys: replace whole (atomic) or merge as a set. */
  readonly listType?: 'atomic' | 'set';
}

/** An array node of `item`s; with mapKeys the codec also rejects two items with the same keys. */
export function array<A>(item: Node<A>, o: ArrayOptions = {}): Node<A[]> {
  const props = withCommon(
    {
      type: 'array',
      items: item.openAPI(),
      ...(o.minItems !== undefined ? { minItems: o.minItems } : {}),
      ...(o.maxItems !== undefined ? { maxItems: o.maxItems } : {}),
      ...(o.mapKeys
        ? { 'x-kubernetes-list-type': 'map' as const, 'x-kubernetes-list-map-keys': [...o.mapKeys] }
        : {}),
      ...(o.listType ? { 'x-kubernetes-list-type': o.listType } : {}),
    },
    o,
  );
  const n = node<A[]>(`Array<${item.codec.name}>`, props, (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c, 'expected an array');
    if (o.minItems !== undefined && u.length < o.minItems)
      return t.failure(u, c, `must have at least ${o.minItems} items`);
    if (o.maxItems !== undefined && u.length > o.maxItems)
      return t.failure(u, c, `must have at most ${o.maxItems} items`);
    const out: A[] = [];
    const errors: t.Errors = [];
    u.forEach((v, i) => {
      const r = item.codec.validate(v, t.appendContext(c, String(i), item.codec, v));
      if (E.isLeft(r)) errors.push(...r.left);
      else out.push(r.right);
    });
    if (errors.length > 0) return t.failures(errors);
    if (o.mapKeys) {
      const seen = new Set<string>();
      for (let i = 0; i < out.length; i++) {
        const key = JSON.stringify(o.mapKeys.map((k) => (out[i] as Record<string, unknown>)[k]));
        if (seen.has(key))
          return t.failure(
            u[i],
            t.appendContext(c, String(i), item.codec, u[i]),
            `duplicate entry for key ${o.mapKeys.join(',')}`,
          );
        seen.add(key);
      }
    }
    return t.success(out);
  });
  withShape(n.codec, arrayShape(shapeOf(item.codec)));
  return n;
}

// ---- objects ---------------------------------------------------------------------------

type Kind = 'required' | 'optional' | 'default';

/** A field of an object node: its schema and whether it is required, optional or defaulted. */
export interface Field<A, K extends Kind> {
  /** The field's schema node. */
  readonly node: Node<A>;
  /** required: must be present; optional: may be absent; default: absent means `default`. */
  readonly kind: K;
  /** The value used when the field is absent (kind `default` only). */
  readonly default?: A;
}

/** Must be present (listed in `required`). */
export function required<A>(n: Node<A>): Field<A, 'required'> {
  return { node: n, kind: 'required' };
}

/** May be absent. */
export function optional<A>(n: Node<A>): Field<A, 'optional'> {
  return { node: n, kind: 'optional' };
}

/** Absent -> the apiserver (and the codec) fill in the default. */
export function defaulted<A>(n: Node<A>, value: A): Field<A, 'default'> {
  const checked = n.codec.decode(value);
  if (E.isLeft(checked))
    throw new Error(`schema: default ${JSON.stringify(value)} is not valid for ${n.codec.name}`);
  return { node: n, kind: 'default', default: value };
}

/**
 * Absent -> `{}`, and the object's own field defaults fill it in (the apiserver applies
 * nested defaults to a defaulted parent the same way).
 */
export function defaultedToEmpty<A>(n: Node<A>): Field<A, 'default'> {
  const checked = n.codec.decode({});
  if (E.isLeft(checked))
    throw new Error(
      `schema: {} is not a valid default for ${n.codec.name}: a field without default is required`,
    );
  return { node: n, kind: 'default', default: {} as A };
}

type AnyField = Field<any, Kind>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Fields = Record<string, AnyField>;
type FieldType<F> = F extends Field<infer A, Kind> ? A : never;
type PresentKeys<F extends Fields> = {
  [K in keyof F]: F[K]['kind'] extends 'optional' ? never : K;
}[keyof F];
type OptionalKeys<F extends Fields> = {
  [K in keyof F]: F[K]['kind'] extends 'optional' ? K : never;
}[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The decoded type of an object with fields `F`: optional fields are optional properties, defaulted ones always present. */
export type ObjectType<F extends Fields> = Simplify<
  { [K in PresentKeys<F>]: FieldType<F[K]> } & { [K in OptionalKeys<F>]?: FieldType<F[K]> }
>;

/** A CEL rule (x-kubernetes-validations) with the TypeScript check the codec runs. */
export interface Rule<A> extends ValidationRule {
  /** The TypeScript twin of the CEL rule: true when the decoded value passes it. */
  readonly check: (a: A) => boolean;
}

/** Options of an object node. */
export interface ObjectOptions<A> extends Common {
  /** CEL rules on the whole object, each with its TypeScript check; the first that fails is reported. */
  readonly rules?: readonly Rule<A>[];
}

/**
 * An object node with the given fields. Like a structural schema it is closed: decoding drops
 * undeclared fields, and core's strict() can reject them instead.
 */
export function object<F extends Fields>(
  fields: F,
  o: ObjectOptions<ObjectType<F>> = {},
): Node<ObjectType<F>> {
  const properties: Record<string, JSONSchemaProps> = {};
  const req: string[] = [];
  for (const [k, f] of Object.entries(fields)) {
    const p = f.node.openAPI();
    if (f.kind === 'default') p.default = structuredClone(f.default);
    if (f.kind === 'required') req.push(k);
    properties[k] = p;
  }
  const rules = o.rules ?? [];
  const props = withCommon(
    {
      type: 'object',
      properties,
      ...(req.length ? { required: req } : {}),
      ...(rules.length
        ? { 'x-kubernetes-validations': rules.map(({ check: _check, ...r }) => r) }
        : {}),
    },
    o,
  );
  const n = node<ObjectType<F>>('object', props, (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u))
      return t.failure(u, c, 'expected an object');
    const src = u as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const errors: t.Errors = [];
    for (const [k, f] of Object.entries(fields)) {
      const v = src[k];
      if (v === undefined) {
        if (f.kind === 'required')
          errors.push({
            value: undefined,
            context: t.appendContext(c, k, f.node.codec, undefined),
            message: 'is required',
          });
        // Defaults were validated when declared; decoding applies nested defaults to them.
        else if (f.kind === 'default') {
          const d = f.node.codec.validate(
            structuredClone(f.default),
            t.appendContext(c, k, f.node.codec, f.default),
          );
          if (E.isLeft(d)) errors.push(...d.left);
          else out[k] = d.right;
        }
        continue;
      }
      const r = f.node.codec.validate(v, t.appendContext(c, k, f.node.codec, v));
      if (E.isLeft(r)) errors.push(...r.left);
      else out[k] = r.right;
    }
    if (errors.length > 0) return t.failures(errors);
    const value = out as ObjectType<F>;
    for (const r of rules) {
      if (!r.check(value)) {
        const ctx = r.fieldPath
          ? t.appendContext(c, r.fieldPath.replace(/^\./, ''), t.unknown, undefined)
          : c;
        return t.failure(u, ctx, r.message);
      }
    }
    return t.success(value);
  });
  // Closed, as a structural schema is: only the declared fields.
  const shapes = Object.entries(fields).map(([k, f]) => [k, shapeOf(f.node.codec)] as const);
  withShape(n.codec, objectShape(Object.fromEntries(shapes)));
  return n;
}
