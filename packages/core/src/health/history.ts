// The remediation history of a Node: its last HISTORY_LIMIT repairs, kept inside the repair
// state annotation (state.ts `history`), so it is written in the same update as the
// transition that ends a repair (no extra write, no second annotation) and survives
// controller restarts. Oldest first: a finished repair is appended at the end and the
// oldest drops out. Pure.
//
// Why 5: enough to see a pattern (the same cause again and again, a ladder that keeps
// climbing to the same step) while the worst case stays near 4 KiB (history.test.ts), small
// next to the 256 KiB all annotations of an object share, and cheap to rewrite on every
// state update.
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';
import { IsoTime } from './time.js';
import { RemediationStepKind } from './policy.js';

/** How many ended repairs a Node's history keeps (the newest). */
export const HISTORY_LIMIT = 5;

/** Most UTF-8 bytes a cause message takes in the annotation's JSON (escapes counted). */
export const CAUSE_MESSAGE_MAX_BYTES = 64;

/** How a step's last attempt ended: TimedOut is an accepted action after which the node was not back in time. */
export const StepResult = t.keyof({ Succeeded: null, Failed: null, TimedOut: null }, 'StepResult');
/** One of Succeeded, Failed, TimedOut (see the StepResult codec). */
export type StepResult = t.TypeOf<typeof StepResult>;

/** One ladder step a repair used: its action, how many attempts it took, how the last ended. */
export interface StepTried {
  /** The step's action. */
  action: RemediationStepKind;
  /** How many attempts of the step were made. */
  attempts: number;
  /** How the step's last attempt ended. */
  result: StepResult;
}
// Named interfaces, not aliases of the codecs' inferred types: declaration files then name
// them instead of spelling out their unions, whose member order TypeScript does not keep
// stable between builds (the checked-in API report would flip).
/** io-ts codec of a StepTried. */
export const StepTried: t.Type<StepTried, unknown> = t.type({
  action: RemediationStepKind,
  attempts: t.number,
  result: StepResult,
});

/** One ended repair, as the history keeps it. */
export interface HistoryEntry {
  /** The remediation's id (the action ids and the Events name it). */
  id: string;
  /** The cause kind (a CauseKind; a plain string so a newer kind still decodes) and its message, clipped. */
  cause: { kind: string; message?: string };
  /** When the repair started, in epoch ms (RFC 3339 in the annotation). */
  startedAt: number;
  /** The duration is endedAt - startedAt; not stored, so the two cannot disagree. */
  endedAt: number;
  /** Succeeded: the node came back; Failed: the ladder was used up. */
  outcome: 'Succeeded' | 'Failed';
  /** The steps in the order they were tried. */
  steps: StepTried[];
}

/** io-ts codec of a HistoryEntry; times are RFC 3339 text in the annotation, epoch ms in memory. */
export const HistoryEntry: t.Type<HistoryEntry, unknown> = t.type({
  id: t.string,
  cause: t.intersection([t.type({ kind: t.string }), t.partial({ message: t.string })]),
  startedAt: IsoTime,
  endedAt: IsoTime,
  outcome: t.keyof({ Succeeded: null, Failed: null }),
  steps: t.array(StepTried),
});

/**
 * The history as the state annotation holds it. Lenient on purpose: an entry that does not
 * decode is dropped (and anything but an array reads as no history) rather than making the
 * whole state unreadable, which would make the controller start the node over and lose the
 * repair in progress for the sake of a record of past ones. The next state write stores
 * what was kept.
 */
export const History = new t.Type<HistoryEntry[], unknown[], unknown>(
  'History',
  (u): u is HistoryEntry[] => Array.isArray(u) && u.every((e) => HistoryEntry.is(e)),
  (u, c) =>
    // Absent stays absent (t.partial skips a failed optional field that is undefined).
    u === undefined
      ? t.failure(u, c, 'no history')
      : t.success(
          Array.isArray(u)
            ? u.flatMap((e) => {
                const r = HistoryEntry.decode(e);
                return either.isRight(r) ? [r.right] : [];
              })
            : [],
        ),
  (a) => a.map((e) => HistoryEntry.encode(e)),
);

/** `history` with `entry` appended, keeping the newest HISTORY_LIMIT (pure). */
export function appendHistory(
  history: readonly HistoryEntry[] | undefined,
  entry: HistoryEntry,
): HistoryEntry[] {
  return [...(history ?? []), entry].slice(-HISTORY_LIMIT);
}

/** UTF-8 bytes of one code point once JSON-escaped (control characters are replaced first). */
function jsonBytes(ch: string): number {
  if (ch === '"' || ch === '\\') return 2;
  const cp = ch.codePointAt(0) ?? 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate is written as \udxxx
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * A message cut to at most `maxBytes` UTF-8 bytes of JSON (so a message of quotes or of
 * 4-byte characters cannot grow the annotation past the budget), control characters turned
 * into spaces, never splitting a character; '…' marks a cut (pure).
 */
export function clipMessage(text: string, maxBytes = CAUSE_MESSAGE_MAX_BYTES): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is replaced
  const chars = Array.from(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim());
  const total = chars.reduce((n, c) => n + jsonBytes(c), 0);
  if (total <= maxBytes) return chars.join('');
  const room = maxBytes - 3; // '…' is 3 bytes
  let used = 0;
  let out = '';
  for (const c of chars) {
    const b = jsonBytes(c);
    if (used + b > room) break;
    used += b;
    out += c;
  }
  return `${out.trimEnd()}…`;
}
