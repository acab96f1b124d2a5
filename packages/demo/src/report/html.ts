// `--report FILE.html`: one self-contained page (inline CSS and SVG; no script, no font, no
// network) with the scenarios' verdicts, the summary, the timeline picture and the table of
// every action. Pure: record + summary in, HTML out.
import type { DemoRecord } from '../record/timeline.js';
import { formatStatusRun, formatSummary } from '../summary/format.js';
import type { Summary } from '../summary/summarize.js';
import { escapeHtml } from './escape.js';
import { PHASE_FILL, READY_FILL, SOURCE_FILL, timelineSvg } from './svg.js';

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.pass { color: #2e7d32; font-weight: 600; } .fail { color: #c62828; font-weight: 600; }
table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; vertical-align: top; }
th { border-bottom: 1px solid #ccc; } tr.noderepair td.kind { color: #1f3fbf; } tr.nova td.kind { color: #c2185b; }
svg.timeline text { font: 11px ui-monospace, monospace; } svg.timeline text.tick { fill: #888; }
.legend span.swatch { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
pre { background: #f6f6f6; padding: 12px; overflow-x: auto; }
td.t { font-variant-numeric: tabular-nums; white-space: nowrap; }
`;

function legend(title: string, fills: Record<string, string>): string {
  const items = Object.entries(fills)
    .map(([k, c]) => `<span class="swatch" style="background:${c}"></span>${escapeHtml(k)}`)
    .join('');
  return `<div class="legend"><b>${escapeHtml(title)}</b>${items}</div>`;
}

export function renderReport(rec: DemoRecord, summary: Summary): string {
  const verdicts = summary.scenarios
    .map(
      (s) =>
        `<tr class="scenario" data-scenario="${escapeHtml(s.id)}"><td class="${s.verdict.ok ? 'pass' : 'fail'}">${s.verdict.ok ? 'PASS' : 'FAIL'}</td>` +
        `<td>${escapeHtml(s.title)}</td><td>${escapeHtml(s.expectation)}<br><small>${s.verdict.lines.map(escapeHtml).join('<br>')}</small></td></tr>`,
    )
    .join('\n');
  const actions = [...rec.actions]
    .sort((a, b) => a.t - b.t)
    .map(
      (a) =>
        `<tr class="action ${a.source}" data-node="${escapeHtml(a.node)}" data-kind="${escapeHtml(a.kind)}" data-source="${a.source}">` +
        `<td class="t">${(a.t / 1000).toFixed(1)}s</td><td>${escapeHtml(a.node)}</td><td>${a.source}</td>` +
        `<td class="kind">${escapeHtml(a.kind)}</td><td>${escapeHtml(a.note)}</td></tr>`,
    )
    .join('\n');
  const statusRuns = rec.statusRuns
    .map(
      (r) =>
        `<pre class="noderepair-status" data-scenario="${escapeHtml(r.scenario)}">${escapeHtml(formatStatusRun(r).join('\n'))}</pre>`,
    )
    .join('\n');
  const started = new Date(rec.startedAt).toISOString();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>noderepair demo report</title>
<style>${CSS}</style>
</head>
<body>
<h1>noderepair demo — ${summary.nodes} nodes, ${(summary.durationMs / 1000).toFixed(0)} s, started ${escapeHtml(started)}</h1>
<p class="${summary.ok ? 'pass' : 'fail'}" id="outcome">${summary.ok ? 'Every scenario behaved as expected.' : 'Some scenarios did NOT behave as expected.'}</p>
<p>Real etcd, kube-apiserver and kube-controller-manager (envtest); every node is a FAKE kubelet on a Nova server
(${summary.openstack.length ? escapeHtml(summary.openstack.join('; ')) : 'FakeOpenStack, a test double of Keystone + Nova'}); the repairs are made by <code>noderepair run --provider openstack</code>
(the compiled CLI of @noderepair/core, as a child process); a deleted server's capacity is brought back by the demo's stand-in for the node group's owner.</p>
<h2>Timeline</h2>
${legend('phase', PHASE_FILL)}
${legend('Ready', READY_FILL)}
${legend('action by', SOURCE_FILL)}
<div id="timeline">${timelineSvg(rec)}</div>
<h2>Scenarios</h2>
<table id="scenarios">${verdicts}</table>
<h2>Summary</h2>
<pre id="summary">${escapeHtml(formatSummary(summary).join('\n'))}</pre>
<h2><code>noderepair status</code> while the scenarios ran</h2>
${statusRuns || '<p>(none kept)</p>'}
<h2>Every action</h2>
<table id="actions"><tr><th>time</th><th>node</th><th>by</th><th>what</th><th>detail</th></tr>
${actions}
</table>
</body>
</html>
`;
}
