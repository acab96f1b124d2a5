// Finds the keys of a value that its Shape does not know: a typo in user input must be an
// error naming the field, never a silently kept default. Only key names are reported (they
// are the user's spelling of a field), never values (inputs carry passwords and tokens).
import type { Shape, ShapeMember } from './shape.js';

/** One step of a path into a decoded value: an object key or an array index. */
export type PathSegment = string | number;

/**
 * A key the codec does not know, found in user input; reported by name with its place and the keys
 * that were expected, never with its value.
 */
export interface UnknownField {
  /** Where the unknown key sits: the path of its object, then the key itself. */
  readonly path: readonly PathSegment[];
  /** The unknown key as the user spelt it. */
  readonly field: string;
  /** The keys the object at that level knows, in declaration order. */
  readonly known: readonly string[];
  /** The known key the user probably meant, when one is close. */
  readonly suggestion?: string;
}

type Level =
  | { readonly kind: 'none' }
  | { readonly kind: 'array'; readonly items: readonly Shape[] }
  | {
      readonly kind: 'object';
      readonly fields: ReadonlyMap<string, readonly Shape[]>;
      /** Value shapes for keys no field names (records); undefined: closed. */
      readonly open: readonly Shape[] | undefined;
    };

const NONE: Level = { kind: 'none' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function all(shapes: readonly Shape[]): Shape {
  return shapes.length === 1 ? (shapes[0] as Shape) : { kind: 'all', members: shapes };
}

/** What the shape says about this level of this value. */
function levelOf(shape: Shape, value: unknown): Level {
  switch (shape.kind) {
    case 'any':
      return NONE;
    case 'lazy':
      return levelOf(shape.get(), value);
    case 'array':
      return { kind: 'array', items: [shape.items] };
    case 'record':
      return { kind: 'object', fields: new Map(), open: [shape.values] };
    case 'object': {
      const fields = new Map<string, Shape[]>();
      for (const [k, s] of shape.fields) fields.set(k, [s]);
      return { kind: 'object', fields, open: undefined };
    }
    case 'oneOf': {
      const member = choose(shape.members, value);
      return member === undefined ? NONE : levelOf(member, value);
    }
    case 'all':
      return merge(
        shape.members.map((m) => levelOf(m, value)),
        value,
      );
  }
}

/** An intersection's levels as one: the value must satisfy every member, so keys add up. */
function merge(levels: readonly Level[], value: unknown): Level {
  const want = Array.isArray(value) ? 'array' : 'object';
  const same = levels.filter((l) => l.kind === want);
  if (same.length === 0) return NONE;
  if (want === 'array')
    return { kind: 'array', items: same.flatMap((l) => (l.kind === 'array' ? l.items : [])) };
  const fields = new Map<string, Shape[]>();
  let open: Shape[] | undefined;
  for (const l of same) {
    if (l.kind !== 'object') continue;
    for (const [k, s] of l.fields) fields.set(k, [...(fields.get(k) ?? []), ...s]);
    if (l.open !== undefined) open = [...(open ?? []), ...l.open];
  }
  return { kind: 'object', fields, open };
}

/**
 * The union member to hold the value against: among the members that decode it, the one
 * with the fewest unknown fields; when none decodes it, among those of the value's kind
 * (object or array), the one it misses least (then the fewest unknown fields), so that in
 * `{type: exec, comand: [...]}` the typo is named against the exec check's fields.
 */
function choose(members: readonly ShapeMember[], value: unknown): Shape | undefined {
  const scored = members.map((m) => ({ shape: m.shape, misfit: m.misfit(value) }));
  let pool = scored.filter((m) => m.misfit === 0);
  if (pool.length === 0) {
    const want = Array.isArray(value) ? 'array' : isObject(value) ? 'object' : undefined;
    if (want === undefined) return undefined;
    pool = scored.filter((m) => levelOf(m.shape, value).kind === want);
  }
  let best: Shape | undefined;
  let bestScore: readonly [number, number] = [Infinity, Infinity];
  for (const m of pool) {
    const score = [m.misfit, collect(m.shape, value, [], new Set()).length] as const;
    if (score[0] < bestScore[0] || (score[0] === bestScore[0] && score[1] < bestScore[1])) {
      best = m.shape;
      bestScore = score;
      if (score[0] === 0 && score[1] === 0) break;
    }
  }
  return best;
}

function collect(
  shape: Shape,
  value: unknown,
  path: readonly PathSegment[],
  onPath: Set<object>,
  out: UnknownField[] = [],
): UnknownField[] {
  if (typeof value !== 'object' || value === null || onPath.has(value)) return out;
  const level = levelOf(shape, value);
  if (level.kind === 'none') return out;
  onPath.add(value);
  if (level.kind === 'array') {
    if (Array.isArray(value)) {
      const item = all(level.items);
      value.forEach((v, i) => collect(item, v, [...path, i], onPath, out));
    }
  } else if (isObject(value)) {
    const known = [...level.fields.keys()];
    for (const k of Object.keys(value)) {
      const shapes = level.fields.get(k) ?? level.open;
      if (shapes !== undefined) collect(all(shapes), value[k], [...path, k], onPath, out);
      else {
        const suggestion = closestName(k, known);
        out.push({ path: [...path, k], field: k, known, ...(suggestion ? { suggestion } : {}) });
      }
    }
  }
  onPath.delete(value);
  return out;
}

/** Every key of `value` that `shape` does not know, at any depth, in document order. */
export function unknownFields(shape: Shape, value: unknown): UnknownField[] {
  return collect(shape, value, [], new Set());
}

// ---- suggestions -----------------------------------------------------------------------

function normalise(s: string): string {
  return s.toLowerCase().replace(/[-_]/g, '');
}

/** Optimal string alignment distance (edits plus adjacent transpositions). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = v;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * The known name `name` most likely misspells: equal but for case, `-` and `_`; else at most
 * 1 edit (2 for names of 8+ letters); else one is a prefix of the other (4+ letters), as in
 * `region` for `region_name`; else they share most of a 4+ letter start (`retry`, `retries`).
 * Undefined when nothing is that close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > 100) return undefined;
  const n = normalise(name);
  const limit = n.length >= 8 ? 2 : n.length >= 3 ? 1 : 0;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const k of known) {
    const m = normalise(k);
    let score = Infinity;
    if (m === n) score = 0;
    else {
      const dist = distance(n, m);
      if (dist <= limit) score = dist;
      else if (Math.min(n.length, m.length) >= 4 && (m.startsWith(n) || n.startsWith(m)))
        score = 10 + Math.abs(m.length - n.length);
      else {
        const common = commonPrefix(n, m);
        if (common >= 4 && common >= 0.75 * Math.min(n.length, m.length))
          score = 20 + Math.max(n.length, m.length) - common;
      }
    }
    if (score < bestScore) {
      best = k;
      bestScore = score;
    }
  }
  return best;
}

// ---- messages --------------------------------------------------------------------------

function cut(key: string): string {
  return key.length > 60 ? `${key.slice(0, 57)}...` : key;
}

/** A key as a path segment: long keys are cut, unusual ones quoted. */
export function displayKey(key: string): string {
  return /^[\w.\-/]+$/.test(cut(key)) ? cut(key) : JSON.stringify(cut(key));
}

/** `root.a.b[2].c`, with `root` left out when empty. */
export function formatPath(root: string, path: readonly PathSegment[]): string {
  let out = root;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? displayKey(seg) : `.${displayKey(seg)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** The message after the path: `unknown field "x" (did you mean "y"?); known fields: a, b`. */
export function unknownFieldMessage(f: UnknownField): string {
  const hint = f.suggestion !== undefined ? ` (did you mean "${f.suggestion}"?)` : '';
  const known = f.known.length > 0 ? f.known.join(', ') : '(none)';
  return `unknown field ${JSON.stringify(cut(f.field))}${hint}; known fields: ${known}`;
}

/** One line: `root.a.b.x: unknown field "x" (did you mean "y"?); known fields: a, b`. */
export function formatUnknownField(f: UnknownField, root = ''): string {
  return `${formatPath(root, f.path)}: ${unknownFieldMessage(f)}`;
}
