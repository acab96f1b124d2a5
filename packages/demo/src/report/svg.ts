// The timeline picture: one row per node, a bar coloured by noderepair's phase over a thin
// stripe coloured by the Node's Ready condition, and a marker per action (hover: what and
// when). Inline SVG, no script, no external resource. Pure.
import type { ActionRecord, DemoRecord, NodeTimeline } from '../record/timeline.js';
import { escapeHtml } from './escape.js';

export const PHASE_FILL: Record<string, string> = {
  Healthy: '#cfe9d2',
  Suspect: '#ffe08a',
  Unhealthy: '#f4a259',
  Remediating: '#4f7cff',
  Verifying: '#93b0ff',
  Failed: '#d64545',
  Waiting: '#b9b9c9',
  Unreadable: '#999999',
  Gone: '#eeeeee',
};

export const READY_FILL: Record<string, string> = {
  True: '#2e9e44',
  False: '#d64545',
  Unknown: '#f08c00',
  None: '#999999',
  Gone: '#dddddd',
};

const SOURCE_SHAPE: Record<string, string> = {
  noderepair: 'circle',
  nova: 'diamond',
  scenario: 'triangle',
  machine: 'square',
};

export const SOURCE_FILL: Record<string, string> = {
  noderepair: '#1f3fbf',
  nova: '#c2185b',
  scenario: '#333333',
  machine: '#7b5e00',
};

const LABEL_W = 170;
const ROW_H = 22;
const TOP = 28;

function marker(a: ActionRecord, x: number, y: number): string {
  const fill = SOURCE_FILL[a.source] ?? '#000';
  const shape = SOURCE_SHAPE[a.source] ?? 'circle';
  const title = `<title>${escapeHtml(`${(a.t / 1000).toFixed(1)}s ${a.node} — ${a.source} ${a.kind}: ${a.note}`)}</title>`;
  const attrs = `class="action" data-node="${escapeHtml(a.node)}" data-kind="${escapeHtml(a.kind)}" data-source="${a.source}" fill="${fill}"`;
  switch (shape) {
    case 'diamond':
      return `<path ${attrs} d="M${x} ${y - 6}L${x + 6} ${y}L${x} ${y + 6}L${x - 6} ${y}Z">${title}</path>`;
    case 'triangle':
      return `<path ${attrs} d="M${x} ${y - 6}L${x + 6} ${y + 5}L${x - 6} ${y + 5}Z">${title}</path>`;
    case 'square':
      return `<rect ${attrs} x="${x - 5}" y="${y - 5}" width="10" height="10">${title}</rect>`;
    default:
      return `<circle ${attrs} cx="${x}" cy="${y}" r="4.5">${title}</circle>`;
  }
}

function row(tl: NodeTimeline, i: number, x: (t: number) => number, end: number): string {
  const y = TOP + i * ROW_H;
  const parts: string[] = [];
  const label = tl.scenario ? `${tl.name} · ${tl.scenario}` : tl.name;
  parts.push(`<text class="label" x="4" y="${y + 14}">${escapeHtml(label)}</text>`);
  for (const s of tl.segments) {
    const x0 = x(s.from);
    const w = Math.max(1, x(s.to ?? end) - x0);
    const what = `${tl.name}: ${s.phase}, Ready=${s.ready}, ${(s.from / 1000).toFixed(1)}s–${((s.to ?? end) / 1000).toFixed(1)}s`;
    parts.push(
      `<rect class="phase" data-phase="${escapeHtml(s.phase)}" x="${x0.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="12" fill="${PHASE_FILL[s.phase] ?? '#ccc'}"><title>${escapeHtml(what)}</title></rect>`,
      `<rect class="ready" data-ready="${s.ready}" x="${x0.toFixed(1)}" y="${y + 15}" width="${w.toFixed(1)}" height="4" fill="${READY_FILL[s.ready] ?? '#ccc'}"/>`,
    );
  }
  for (const a of [...tl.actions].sort((p, q) => p.t - q.t)) parts.push(marker(a, x(a.t), y + 8));
  return `<g class="node-row" data-node="${escapeHtml(tl.name)}">${parts.join('')}</g>`;
}

/** The timeline as an SVG element. */
export function timelineSvg(rec: DemoRecord, width = 1200): string {
  const nodes = [...rec.nodes.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  const end = Math.max(rec.now, 1000);
  const plotW = width - LABEL_W - 16;
  const x = (t: number) => LABEL_W + (Math.min(Math.max(t, 0), end) / end) * plotW;
  const height = TOP + nodes.length * ROW_H + 10;
  const ticks: string[] = [];
  const step = end > 240_000 ? 30_000 : end > 60_000 ? 10_000 : 5_000;
  for (let t = 0; t <= end; t += step) {
    const tx = x(t).toFixed(1);
    ticks.push(
      `<line x1="${tx}" y1="${TOP - 6}" x2="${tx}" y2="${height - 8}" stroke="#e4e4e4"/>`,
      `<text class="tick" x="${tx}" y="${TOP - 10}" text-anchor="middle">${t / 1000}s</text>`,
    );
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="timeline of every node">`,
    ...ticks,
    ...nodes.map((tl, i) => row(tl, i, x, end)),
    '</svg>',
  ].join('\n');
}
