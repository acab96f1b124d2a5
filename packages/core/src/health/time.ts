// Time helpers shared by the pure health code. Everything inside health/ works in epoch
// milliseconds (plain numbers) so that decisions are cheap to compare and trivially
// deterministic; Date and ISO strings are accepted only at the edges.
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';

/** A point in time as the API gives it to us: a Date (client-node), an RFC 3339 string, or epoch ms. */
export type TimeInput = Date | string | number;

/** Epoch milliseconds of a time input; undefined when absent or unparseable. */
export function toMillis(value: TimeInput | null | undefined): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Epoch milliseconds of `now`, which callers inject (the clock is never read here). */
export function nowMillis(now: Date | number): number {
  return typeof now === 'number' ? now : now.getTime();
}

/** RFC 3339 text (UTC, milliseconds) of epoch milliseconds, for messages and the wire. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Go-style duration text ("90s", "10m", "1h30m", "250ms") or a bare number of seconds -> ms. */
export function parseDuration(input: string | number): either.Either<string, number> {
  if (typeof input === 'number') {
    return Number.isFinite(input) && input >= 0
      ? either.right(Math.round(input * 1000))
      : either.left(`expected a non-negative number of seconds, got ${input}`);
  }
  const text = input.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return parseDuration(Number(text));
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const n = Number(m[1]);
    const unit = m[2];
    total += n * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
    matched = re.lastIndex;
  }
  if (text.length === 0 || matched !== text.length) {
    return either.left(
      `expected a duration like "90s", "10m" or "1h30m" (or seconds as a number), got "${input}"`,
    );
  }
  return either.right(Math.round(total));
}

/** Human text for a duration in ms, in the same style Go prints ("10m0s" -> we print "10m"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  let rest = Math.round(ms / 1000);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 || (h === 0 && m === 0) ? `${s}s` : ''}`;
}

/** io-ts codec: a duration as text or seconds on the wire, milliseconds in memory. */
export const DurationMs = new t.Type<number, string, unknown>(
  'Duration',
  (u): u is number => typeof u === 'number' && Number.isFinite(u) && u >= 0,
  (u, c) => {
    if (typeof u !== 'string' && typeof u !== 'number')
      return t.failure(u, c, 'expected a duration such as "10m" or a number of seconds');
    const parsed = parseDuration(u);
    return either.isRight(parsed) ? t.success(parsed.right) : t.failure(u, c, parsed.left);
  },
  (ms) => formatDuration(ms),
);

/** io-ts codec: an RFC 3339 timestamp on the wire, epoch ms in memory. */
export const IsoTime = new t.Type<number, string, unknown>(
  'IsoTime',
  (u): u is number => typeof u === 'number' && Number.isFinite(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'expected an RFC 3339 timestamp string');
    const ms = Date.parse(u);
    return Number.isNaN(ms)
      ? t.failure(u, c, `expected an RFC 3339 timestamp, got "${u}"`)
      : t.success(ms);
  },
  (ms) => iso(ms),
);
