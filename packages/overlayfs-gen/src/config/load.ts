// Parsing a config file's text: YAML (a superset of JSON, so JSON files work too), then the
// io-ts codec, then the semantic rules. Pure: the CLI does the file reading.
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import * as t from 'io-ts';
import { parseDocument } from 'yaml';
import { expectedOf, failedType, refineError } from '@noderepair/core/codec';
import type { ConfigError } from './errors.js';
import { RawConfig } from './codec.js';
import type { OverlayConfig } from './types.js';
import { resolveConfig } from './validate.js';

function fieldOf(context: t.Context): string {
  let out = '';
  context.forEach((entry, i) => {
    const parent = context[i - 1]?.type;
    // Intersections and unions add their member index to the path; a person never wrote it.
    if (entry.key === '' || parent instanceof t.IntersectionType || parent instanceof t.UnionType)
      return;
    out += /^[0-9]+$/.test(entry.key) ? `[${entry.key}]` : out === '' ? entry.key : `.${entry.key}`;
  });
  return out === '' ? '(top level)' : out;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const s = JSON.stringify(value);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** io-ts errors as ConfigErrors: the field, what was expected, what was found. */
export function decodeErrors(errors: t.Errors): ConfigError[] {
  const seen = new Set<string>();
  const out: ConfigError[] = [];
  for (const raw of errors) {
    // core's rules, as every noderepair input: an enum lists its values (a tagged union's tag
    // too: check.type), and a YAML boolean or number where a string enum goes says to quote it.
    const e = refineError(raw);
    const field = fieldOf(e.context);
    const { expected, got, hint } = expectedOf(failedType(e.context), e.value);
    const message =
      e.message ??
      `${expected}, got ${got ?? describe(e.value)}${hint === undefined ? '' : `; ${hint}`}`;
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, rule: e.message !== undefined ? 'unknown-field' : 'type', message });
  }
  return out;
}

/** Decode an already-parsed value (e.g. an object built in code). */
export function decodeConfig(value: unknown): Either<readonly ConfigError[], OverlayConfig> {
  const raw = RawConfig.decode(value ?? {});
  if (either.isLeft(raw)) return either.left(decodeErrors(raw.left));
  return resolveConfig(raw.right);
}

/** Parse YAML or JSON text; an empty document means "all defaults". */
export function parseConfig(text: string): Either<readonly ConfigError[], OverlayConfig> {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return either.left(
      doc.errors.map((e) => ({
        field: '(file)',
        rule: 'syntax',
        message: e.message.split('\n')[0] ?? e.message,
      })),
    );
  }
  return decodeConfig(doc.toJS());
}
