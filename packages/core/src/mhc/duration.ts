// Durations the way Cluster API's Go code reads and prints them. MachineHealthCheck v1beta1
// carries metav1.Duration text ("5m0s"), which the v1beta1 -> v1beta2 conversion truncates to
// whole seconds; Cluster API's condition messages print time.Duration.String() ("5m0s",
// "1h0m0s"). health/time.ts keeps its own friendlier format for noderepair's own messages.
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_INT64 = 2n ** 63n - 1n;
const MAX_INT32 = 2 ** 31 - 1;

/**
 * Go's time.ParseDuration: an optional sign, then one or more decimal numbers each with a unit
 * (ns, us, µs, ms, s, m, h), e.g. "300ms", "1.5h", "2h45m"; "0" alone needs no unit. Returns
 * nanoseconds (bigint, exact) or the reason it is not a Go duration.
 */
export function parseGoDurationNs(text: string): either.Either<string, bigint> {
  const bad = either.left(`expected a Go duration such as "5m0s", "300s" or "1h", got "${text}"`);
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return either.right(0n);
  if (s === '') return bad;
  const re = /([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0n;
  let at = 0;
  while (at < s.length) {
    re.lastIndex = at;
    const m = re.exec(s);
    if (m === null) return bad;
    const whole = m[1] ?? '';
    const frac = m[2] ?? '';
    if (whole === '' && frac === '') return bad; // "." or a bare unit
    const unit = NS_PER_UNIT[m[3] as string] as bigint;
    // Like Go: the whole part exactly, the fraction scaled and truncated to nanoseconds.
    total += BigInt(whole === '' ? '0' : whole) * unit;
    if (frac !== '') total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    if (total > MAX_INT64) return either.left(`duration "${text}" is out of range`);
    at = re.lastIndex;
  }
  return either.right(negative ? -total : total);
}

/**
 * clusterv1.ConvertToSeconds: a metav1.Duration becomes whole seconds, truncated toward zero
 * and capped at the int32 maximum ("5.9s" -> 5, "500ms" -> 0).
 */
export function truncateToSeconds(ns: bigint): number {
  const s = ns / 1_000_000_000n; // bigint division truncates toward zero, as math.Trunc does
  return s > BigInt(MAX_INT32) ? MAX_INT32 : Number(s);
}

/**
 * io-ts codec for a v1beta1 duration field: metav1.Duration text on the wire, the whole
 * seconds the conversion keeps, in milliseconds, in memory. Negative durations are refused
 * (Cluster API would store a negative timeout; see docs/mhc.md).
 */
export const V1Beta1Timeout = new t.Type<number, string, unknown>(
  'Duration',
  (u): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0 && u % 1000 === 0,
  (u, c) => {
    if (typeof u !== 'string')
      return t.failure(u, c, 'expected a Go duration string such as "5m0s" or "300s"');
    const ns = parseGoDurationNs(u);
    if (either.isLeft(ns)) return t.failure(u, c, ns.left);
    if (ns.right < 0n) return t.failure(u, c, `a timeout must not be negative, got "${u}"`);
    return t.success(truncateToSeconds(ns.right) * 1000);
  },
  (ms) => goDuration(ms),
);

/** Go's time.Duration.String() for a duration in milliseconds: "0s", "500ms", "1.5s", "5m0s", "1h0m0s". */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(ms));
  if (abs < 1000) return `${sign}${abs}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  const restMs = abs % 60_000;
  const whole = Math.floor(restMs / 1000);
  const frac = String(restMs % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  const s = `${whole}${frac === '' ? '' : `.${frac}`}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}
