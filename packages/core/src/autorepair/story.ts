// The log lines that tell a repair's story at its phase transitions (the executor logs the
// steps it runs: cordoned, drain finished, action sent / accepted, fenced, uncordoned). One
// line per transition, with the node, the remediation, the action id where there is one and
// the decision's reason: info for the story, warn for holds, retries and a give-up. Pure
// (storyLines) plus a small memory of each node's hold, so a hold is logged when it begins or
// changes, not at every recheck.
import type { RepairDecision } from '../health/decide.js';
import type { RepairState } from '../health/state.js';
import type { RuntimeLogger } from '../runtime/logger.js';
import { endsInSuccess, startsRemediation } from './events.js';
import { holdReason } from './metrics.js';

/** One log line of the story. */
export interface StoryLine {
  level: 'info' | 'warn';
  msg: string;
  fields: Record<string, unknown>;
}

const inFlight = (p: string | undefined) => p === 'Remediating' || p === 'Verifying';

/**
 * The story lines of one decision about a node whose state was `prev`. `heldBefore` is the
 * hold last logged for the node (holdReason), so a hold that goes on is not logged again.
 */
export function storyLines(
  d: RepairDecision,
  prev: RepairState | undefined,
  heldBefore: string | undefined,
): StoryLine[] {
  const out: StoryLine[] = [];
  const node = d.node;
  const rem = d.nextState?.remediation;
  const was = prev?.remediation;
  const ids = (r: typeof rem) =>
    r === undefined
      ? {}
      : {
          remediationId: r.id,
          ...(r.intent !== undefined ? { action: r.intent.action } : {}),
          attempt: r.attempt,
          ...(r.intent?.actionId ? { actionId: r.intent.actionId } : {}),
        };
  const held = d.held !== undefined ? holdReason(d.held) : undefined;
  if (held !== undefined && held !== heldBefore)
    out.push({
      level: 'warn',
      msg: 'repair held',
      fields: { node, hold: held, scope: d.held?.scope, reason: d.reason },
    });
  if (held === undefined && heldBefore !== undefined)
    out.push({ level: 'info', msg: 'no longer held', fields: { node, was: heldBefore } });
  if (d.phase === 'Waiting' && prev?.phase !== 'Waiting')
    out.push({
      level: 'info',
      msg: 'node shutting down: waiting',
      fields: { node, reason: d.reason },
    });
  if (startsRemediation(d, prev)) {
    out.push({
      level: 'info',
      msg: 'repair started',
      fields: { node, ...ids(rem), cause: d.cause.kind, reason: d.reason },
    });
    return out;
  }
  if (endsInSuccess(d, prev)) {
    out.push({
      level: 'info',
      msg: 'repair succeeded',
      fields: { node, ...ids(was), reason: d.reason },
    });
    return out;
  }
  if (d.actions.some((a) => a.type === 'GiveUp')) {
    const giveUp = d.actions.find((a) => a.type === 'GiveUp');
    out.push({
      level: 'warn',
      msg: 'repair failed: giving up',
      fields: { node, ...ids(was), reason: giveUp?.reason ?? d.reason },
    });
    return out;
  }
  // The same repair goes on: a next attempt or step, the wait for the node, its healthy period.
  if (rem === undefined || was === undefined || rem.id !== was.id || !inFlight(prev?.phase))
    return out;
  if (rem.step !== was.step || rem.attempt !== was.attempt) {
    out.push({
      level: 'warn',
      msg: rem.step !== was.step ? 'repair escalates to the next step' : 'repair tries again',
      fields: {
        node,
        ...ids(rem),
        ...(was.intent?.actionId ? { previousActionId: was.intent.actionId } : {}),
        reason: d.reason,
      },
    });
    return out;
  }
  const asks = rem.intent?.silentAsks;
  if (asks === 1 && was.intent?.silentAsks === undefined) {
    out.push({
      level: 'warn',
      msg: 'attempt timed out with the node silent: waiting for evidence',
      fields: { node, ...ids(rem), reason: d.reason },
    });
    return out;
  }
  // (The wait for Ready after an accepted action is the executor's 'action accepted' line.)
  if (
    d.phase === 'Verifying' &&
    d.nextState?.healthySince !== undefined &&
    prev?.healthySince === undefined
  )
    out.push({
      level: 'info',
      msg: 'node Ready again: verifying',
      fields: { node, ...ids(rem), reason: d.reason },
    });
  return out;
}

/** Logs each decision's story lines, remembering each node's hold between decisions. */
export class RepairStory {
  private readonly held = new Map<string, string>();

  constructor(private readonly log: RuntimeLogger) {}

  /** Logs the lines of a decision about `d.node`, whose state was `prev`. */
  decided(d: RepairDecision, prev: RepairState | undefined): void {
    for (const l of storyLines(d, prev, this.held.get(d.node))) this.log[l.level](l.fields, l.msg);
    if (d.held !== undefined) this.held.set(d.node, holdReason(d.held));
    else this.held.delete(d.node);
  }

  /** The node is gone: its hold is forgotten. */
  forget(node: string): void {
    this.held.delete(node);
  }
}
