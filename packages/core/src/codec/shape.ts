// The key structure of a codec: which fields each object level knows, which levels are open
// (records, opaque values) and how levels nest. Unknown-field checks walk a Shape, so any
// codec family can take part: io-ts codecs are read by shapeOf(), and a codec built some other
// way (capo-remediation's schema DSL) attaches its own Shape with withShape().
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';

/** One member of a union Shape. */
export interface ShapeMember {
  /** The member's shape. */
  readonly shape: Shape;
  /** How many errors this union member finds in the value (unknown fields aside); 0: it decodes it. */
  readonly misfit: (u: unknown) => number;
}

/**
 * The key structure of a codec: which keys each object level knows, which levels are open, and how
 * they nest. Unknown-field checks walk it.
 */
export type Shape =
  /** Not checked: scalars, custom codecs, opaque objects (t.unknown, metadata). */
  | { readonly kind: 'any' }
  /** A closed object: only these keys. */
  | { readonly kind: 'object'; readonly fields: ReadonlyMap<string, Shape> }
  /** An open object (t.record with string keys): any key, values checked. */
  | { readonly kind: 'record'; readonly values: Shape }
  | { readonly kind: 'array'; readonly items: Shape }
  /** An intersection: a key is known when any member knows it. */
  | { readonly kind: 'all'; readonly members: readonly Shape[] }
  /** A union: the value is checked against the member that fits it best. */
  | { readonly kind: 'oneOf'; readonly members: readonly ShapeMember[] }
  /** Recursive codecs (t.recursion) resolve their shape on use. */
  | { readonly kind: 'lazy'; readonly get: () => Shape };

/** A shape whose value is not checked for unknown fields. */
export const anyShape: Shape = { kind: 'any' };

/** A closed object: only the given keys are known. */
export function objectShape(fields: Readonly<Record<string, Shape>>): Shape {
  return { kind: 'object', fields: new Map(Object.entries(fields)) };
}

/** An open object: any key, each value checked against `values` (default: not checked). */
export function recordShape(values: Shape = anyShape): Shape {
  return { kind: 'record', values };
}

/** An array whose items are checked against `items`. */
export function arrayShape(items: Shape): Shape {
  return { kind: 'array', items };
}

const SHAPE = Symbol.for('noderepair.codec.shape');

/** Attaches a Shape to a codec that shapeOf() cannot read (a custom t.Type). */
export function withShape<C extends t.Decoder<unknown, unknown>>(codec: C, shape: Shape): C {
  Object.defineProperty(codec, SHAPE, { value: shape, enumerable: false, configurable: true });
  return codec;
}

interface Introspectable {
  readonly _tag?: string;
  readonly props?: t.Props;
  readonly type?: t.Decoder<unknown, unknown>;
  readonly types?: readonly t.Decoder<unknown, unknown>[];
  readonly domain?: Introspectable & t.Decoder<unknown, unknown>;
  readonly codomain?: t.Decoder<unknown, unknown>;
  readonly keys?: Record<string, unknown>;
  readonly value?: unknown;
}

const cache = new WeakMap<object, Shape>();

/** The Shape of an io-ts codec (type, partial, strict, exact, intersection, union, array, record, refinement, readonly, recursion). */
export function shapeOf(codec: t.Decoder<unknown, unknown>): Shape {
  const attached = (codec as unknown as Record<symbol, Shape | undefined>)[SHAPE];
  if (attached !== undefined) return attached;
  const hit = cache.get(codec);
  if (hit !== undefined) return hit;
  const shape = read(codec as t.Decoder<unknown, unknown> & Introspectable);
  cache.set(codec, shape);
  return shape;
}

function read(c: t.Decoder<unknown, unknown> & Introspectable): Shape {
  switch (c._tag) {
    case 'InterfaceType':
    case 'PartialType':
    case 'StrictType': {
      const fields = new Map<string, Shape>();
      for (const [k, v] of Object.entries(c.props ?? {})) fields.set(k, shapeOf(v));
      return { kind: 'object', fields };
    }
    case 'ExactType':
    case 'RefinementType':
    case 'ReadonlyType':
      return c.type ? shapeOf(c.type) : anyShape;
    case 'RecursiveType': {
      const inner = c;
      return { kind: 'lazy', get: () => (inner.type ? shapeOf(inner.type) : anyShape) };
    }
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return c.type ? arrayShape(shapeOf(c.type)) : anyShape;
    case 'IntersectionType':
      return { kind: 'all', members: (c.types ?? []).map(shapeOf) };
    case 'UnionType':
      return {
        kind: 'oneOf',
        members: (c.types ?? []).map((m) => ({ shape: shapeOf(m), misfit: misfit(m) })),
      };
    case 'DictionaryType': {
      const values = c.codomain ? shapeOf(c.codomain) : anyShape;
      const keys = c.domain ? finiteKeys(c.domain) : undefined;
      // A record over a closed key set ("SoftReboot" | "HardReboot" ...) is a closed object.
      return keys === undefined
        ? recordShape(values)
        : { kind: 'object', fields: new Map(keys.map((k) => [k, values])) };
    }
    default:
      return anyShape;
  }
}

function finiteKeys(domain: Introspectable): string[] | undefined {
  if (domain._tag === 'KeyofType' && domain.keys) return Object.keys(domain.keys);
  if (domain._tag === 'LiteralType' && typeof domain.value === 'string') return [domain.value];
  if (domain._tag === 'UnionType' && domain.types) {
    const all = domain.types.map((m) => finiteKeys(m as Introspectable));
    return all.every((k): k is string[] => k !== undefined) ? all.flat() : undefined;
  }
  return undefined;
}

function misfit(codec: t.Decoder<unknown, unknown>): (u: unknown) => number {
  return (u) => {
    try {
      const r = codec.decode(u);
      return E.isRight(r) ? 0 : r.left.length;
    } catch {
      return Infinity;
    }
  };
}
