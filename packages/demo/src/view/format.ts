// Text for the terminal: the live table (every node's Ready, phase, cause, step, timer, last
// action) and the one-line-per-change form used when stdout is not a terminal. Pure: takes
// the record and the time, returns strings; colour is optional ANSI.
import type { ActionRecord, DemoRecord, NodeSample, RecordChange } from '../record/timeline.js';

export interface ScenarioLine {
  title: string;
  expectation: string;
  status: 'waiting' | 'playing' | 'settled' | 'passed' | 'failed';
}

const ESC = '\x1b[';
export const ansi = {
  red: (s: string) => `${ESC}31m${s}${ESC}0m`,
  green: (s: string) => `${ESC}32m${s}${ESC}0m`,
  yellow: (s: string) => `${ESC}33m${s}${ESC}0m`,
  blue: (s: string) => `${ESC}34m${s}${ESC}0m`,
  magenta: (s: string) => `${ESC}35m${s}${ESC}0m`,
  dim: (s: string) => `${ESC}2m${s}${ESC}0m`,
  bold: (s: string) => `${ESC}1m${s}${ESC}0m`,
};
const plain = (s: string) => s;

/** Removes ANSI colour codes (for width computations and tests). */
export function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''); // eslint-disable-line no-control-regex
}

function pad(s: string, width: number): string {
  const visible = stripAnsi(s).length;
  return visible >= width ? s : s + ' '.repeat(width - visible);
}

function truncate(s: string, width: number): string {
  return s.length <= width ? s : `${s.slice(0, Math.max(0, width - 1))}…`;
}

export function clock(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1).padStart(6)}s`;
}

function readyColour(ready: string, colour: boolean): string {
  if (!colour) return ready;
  if (ready === 'True') return ansi.green(ready);
  if (ready === 'False') return ansi.red(ready);
  if (ready === 'Unknown') return ansi.yellow(ready);
  return ansi.dim(ready);
}

const PHASE_COLOURS: Record<string, (s: string) => string> = {
  Healthy: ansi.green,
  Suspect: ansi.yellow,
  Unhealthy: ansi.magenta,
  Remediating: ansi.blue,
  Verifying: ansi.blue,
  Failed: ansi.red,
  Waiting: ansi.dim,
  Gone: ansi.dim,
};

function phaseColour(phase: string, colour: boolean): string {
  return colour ? (PHASE_COLOURS[phase] ?? plain)(phase) : phase;
}

/** Time in the current phase (empty while Healthy: nothing is counting). */
export function timer(s: NodeSample, now: number): string {
  if (s.phase === 'Healthy' || s.phase === 'Gone' || s.phaseSince === undefined) return '';
  return `${Math.max(0, Math.round((now - s.phaseSince) / 1000))}s`;
}

function lastAction(actions: readonly ActionRecord[]): ActionRecord | undefined {
  return actions.reduce<ActionRecord | undefined>(
    (a, b) => (a === undefined || b.t >= a.t ? b : a),
    undefined,
  );
}

export const TABLE_HEADER = [
  'NODE',
  'READY',
  'PHASE',
  'CAUSE',
  'STEP',
  'TIMER',
  'CORDON',
  'LAST ACTION',
];
const WIDTHS = [15, 8, 12, 22, 11, 6, 7];

/**
 * One row per node, in name order. When more than maxRows nodes would not fit, the nodes no
 * scenario plays with and that are Ready and Healthy collapse into one line.
 */
export function nodeRows(
  rec: DemoRecord,
  now: number,
  colour: boolean,
  width = 140,
  maxRows = Infinity,
): string[] {
  const rows: string[] = [];
  const rest = Math.max(20, width - WIDTHS.reduce((a, b) => a + b, 0));
  const head = TABLE_HEADER.map((h, i) => pad(h, WIDTHS[i] ?? 0)).join('');
  rows.push(colour ? ansi.bold(head) : head);
  let shown = [...rec.nodes.values()]
    .filter((tl) => tl.last)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  let hidden = 0;
  if (shown.length > maxRows) {
    const quiet = (tl: (typeof shown)[number]) =>
      !tl.scenario &&
      tl.last?.ready === 'True' &&
      tl.last.phase === 'Healthy' &&
      !tl.last.unschedulable;
    hidden = shown.filter(quiet).length;
    shown = shown.filter((tl) => !quiet(tl));
  }
  for (const tl of shown) {
    const s = tl.last;
    if (!s) continue;
    const a = lastAction(tl.actions);
    const cells = [
      tl.name,
      readyColour(s.ready, colour),
      phaseColour(s.phase, colour),
      s.cause,
      s.step,
      timer(s, now),
      s.unschedulable ? 'yes' : '',
      a
        ? truncate(`${a.kind}${tl.scenario ? ` [${tl.scenario}]` : ''}`, rest)
        : tl.scenario
          ? `[${tl.scenario}]`
          : '',
    ];
    rows.push(cells.map((c, i) => (i < WIDTHS.length ? pad(c, WIDTHS[i] ?? 0) : c)).join(''));
  }
  if (hidden > 0) rows.push(`… and ${hidden} more nodes Ready and Healthy, untouched`);
  return rows;
}

const STATUS_MARK: Record<ScenarioLine['status'], string> = {
  waiting: '·',
  playing: '▶',
  settled: '✓',
  passed: '✓',
  failed: '✗',
};

export function scenarioRows(lines: readonly ScenarioLine[], colour: boolean): string[] {
  return lines.map((l) => {
    const mark = STATUS_MARK[l.status];
    const m = !colour
      ? mark
      : l.status === 'failed'
        ? ansi.red(mark)
        : l.status === 'settled' || l.status === 'passed'
          ? ansi.green(mark)
          : mark;
    return `${m} ${pad(l.title, 30)} ${colour ? ansi.dim(l.expectation) : l.expectation}`;
  });
}

/** The whole live screen, at most `height` lines when the terminal is short. */
export function screen(
  rec: DemoRecord,
  now: number,
  lines: readonly ScenarioLine[],
  colour: boolean,
  width = 140,
  height = Infinity,
): string[] {
  const title = `noderepair demo — ${rec.nodes.size} nodes, ${clock(now).trim()} elapsed`;
  const top = [colour ? ansi.bold(title) : title, '', ...scenarioRows(lines, colour), ''];
  return [...top, ...nodeRows(rec, now, colour, width, height - top.length - 3)];
}

/** One line for the non-terminal mode; undefined for changes not worth a line. */
export function changeLine(c: RecordChange): string | undefined {
  switch (c.type) {
    case 'node': {
      const s = c.sample;
      const p = c.previous;
      if (!p) return undefined; // the initial listing is summarised, not printed node by node
      const parts: string[] = [];
      if (p.ready !== s.ready)
        parts.push(`Ready=${s.ready}${s.readyMessage ? ` (${truncate(s.readyMessage, 70)})` : ''}`);
      if (p.phase !== s.phase) parts.push(`phase ${p.phase} -> ${s.phase}`);
      if (p.cause !== s.cause && s.cause) parts.push(`cause ${s.cause}`);
      if (p.step !== s.step && s.step) parts.push(`step ${s.step}`);
      if (p.unschedulable !== s.unschedulable)
        parts.push(s.unschedulable ? 'cordoned' : 'uncordoned');
      if (parts.length === 0) return undefined;
      return `[${clock(c.t)}] ${pad(s.name, 15)} ${parts.join(', ')}`;
    }
    case 'gone':
      return `[${clock(c.t)}] ${pad(c.node, 15)} Node deleted`;
    case 'action': {
      const a = c.action;
      return `[${clock(a.t)}] ${pad(a.node, 15)} ${a.source} ${a.kind}: ${truncate(a.note, 110)}`;
    }
  }
}
