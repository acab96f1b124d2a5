import { describe, expect, it } from 'vitest';
import { buildRecord, sample } from '../testing/record-builder.js';
import { summarize } from '../summary/summarize.js';
import { renderReport } from './html.js';
import { escapeHtml } from './escape.js';

function page(note = 'Nova accepted reboot SOFT') {
  const rec = buildRecord(
    [
      {
        t: 0,
        samples: [sample('zone-a-01', 'True'), sample('zone-a-03', 'Unknown', 'Remediating')],
      },
      { t: 20000, samples: [sample('zone-a-01', 'True'), sample('zone-a-03', 'True')] },
    ],
    [
      { t: 5000, node: 'zone-a-03', source: 'nova', kind: 'SoftReboot', note },
      {
        t: 19000,
        node: 'zone-a-03',
        source: 'noderepair',
        kind: 'RepairSucceeded',
        note: 'Ready for 4s',
      },
    ],
  );
  const sum = summarize(rec, [
    {
      id: 'kubelet-stops',
      title: 'kubelet stops',
      expectation: 'reboot',
      verdict: { ok: true, lines: ['ok   fine'] },
    },
  ]);
  return renderReport(rec, sum);
}

describe('renderReport', () => {
  it('draws a row per node and a marker and a table row per action', () => {
    const html = page();
    for (const n of ['zone-a-01', 'zone-a-03'])
      expect(html).toContain(`<g class="node-row" data-node="${n}">`);
    expect(
      html.match(/<path class="action" data-node="zone-a-03" data-kind="SoftReboot"/g),
    ).toHaveLength(1);
    expect(html).toMatch(/<tr class="action nova" data-node="zone-a-03" data-kind="SoftReboot"/);
    expect(html).toMatch(
      /<tr class="action noderepair" data-node="zone-a-03" data-kind="RepairSucceeded"/,
    );
    expect(html).toContain('<td class="pass">PASS</td>');
    expect(html).toContain('id="outcome">Every scenario behaved as expected.');
  });

  it('shows the `noderepair status` tables the scenarios kept, escaped', () => {
    const rec = buildRecord([{ t: 0, samples: [sample('zone-c-02', 'False', 'Unhealthy')] }]);
    expect(renderReport(rec, summarize(rec, []))).toContain('<p>(none kept)</p>');
    rec.statusRuns.push({
      t: 9000,
      scenario: 'zone-storm',
      command: 'noderepair status --kubeconfig /k --policy /p',
      code: 0,
      lines: [
        'NAME        PHASE       REASON',
        'zone-c-02   Unhealthy   held: storm guard: 4 of 10 nodes unhealthy <in> zone-c (limit 3)',
      ],
      stderr: '',
    });
    const html = renderReport(rec, summarize(rec, []));
    expect(html).toContain('<pre class="noderepair-status" data-scenario="zone-storm">');
    expect(html).toContain('  $ noderepair status --kubeconfig /k --policy /p');
    expect(html).toContain(
      '    zone-c-02   Unhealthy   held: storm guard: 4 of 10 nodes unhealthy &#60;in&#62; zone-c (limit 3)',
    );
  });

  it('is self-contained: no script, no external URL', () => {
    const html = page();
    expect(html).not.toMatch(/<script|<link|@import|src=/i);
    expect(html.match(/https?:\/\/[^"]*/g)).toEqual(['http://www.w3.org/2000/svg']);
  });

  it('escapes text from the cluster', () => {
    const html = page('<img src=x onerror=alert(1)> & "q"');
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62; &#38; &#34;q&#34;');
    expect(escapeHtml(`'`)).toBe('&#39;');
  });
});
