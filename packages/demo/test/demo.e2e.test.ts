// The demo end to end, as a user runs it: `noderepair-demo --report FILE.html` as a child
// process with stdout a pipe (so the plain-line view), then its report opened in headless
// Chromium (Debian's chromium package, see apt-packages.txt). Checks: exit code 0, the
// summary, and that the rendered page shows every node and every repair action the demo
// printed while it ran.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { NODES_PER_ZONE, ZONES } from '../src/scenarios/index.js';
import { nodeName } from '../src/world/names.js';
import { runDemo, type Run } from './support/run-demo.js';

const dir = mkdtempSync(join(tmpdir(), 'noderepair-demo-e2e-'));
const report = join(dir, 'report.html');

function chromium(): string {
  for (const bin of ['chromium', 'chromium-browser']) {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (r.status === 0) return bin;
  }
  throw new Error(
    'chromium not found: install Debian\'s "chromium" package (packages/demo/apt-packages.txt)',
  );
}

/** The page's DOM after Chromium has parsed and laid it out. */
function renderedDom(file: string): string {
  const r = spawnSync(
    chromium(),
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      `--user-data-dir=${join(dir, 'chromium-profile')}`,
      '--dump-dom',
      `file://${file}`,
    ],
    { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 },
  );
  if (r.status !== 0) throw new Error(`chromium exited ${r.status ?? r.signal}: ${r.stderr}`);
  return r.stdout;
}

let run: Run;
let dom: string;

beforeAll(async () => {
  run = await runDemo(['--report', report, '--log-dir', join(dir, 'logs')]);
  if (existsSync(report)) dom = renderedDom(report);
}, 600_000);

describe('pnpm demo', () => {
  it('exits 0 with every scenario behaving as expected', () => {
    if (run.code !== 0) console.error(run.stderr);
    expect(run.code).toBe(0);
    const scenarios = run.stdout.match(/^ {2}(PASS|FAIL) {2}.*$/gm) ?? [];
    expect(scenarios).toHaveLength(7);
    expect(scenarios.filter((l) => l.includes('FAIL'))).toEqual([]);
    expect(run.stdout).toContain('all 7 scenarios behaved as expected');
  });

  it('runs noderepair as a user does: the compiled CLI with --provider openstack', () => {
    expect(run.stdout).toMatch(
      /^==> running: noderepair run --provider openstack --cloud demo-fake --policy \S+policy\.yaml --kubeconfig \S+/m,
    );
    // The policy opts in to Replace explicitly (the default ladder has none).
    const policy = readFileSync(join(dir, 'logs', 'policy.yaml'), 'utf8');
    expect(
      (JSON.parse(policy) as { ladder: { action: string }[] }).ladder.map((s) => s.action),
    ).toEqual(['SoftReboot', 'HardReboot', 'Replace']);
    // The controller's own log is the child process's output.
    const log = readFileSync(join(dir, 'logs', 'noderepair-controller.log'), 'utf8');
    expect(log).toContain('"provider":"openstack"');
    expect(log).toContain('noderepair auto-repair controller starting');
  });

  it('replaces the dead machine: noderepair deletes server and Node, the node group stand-in adds one', () => {
    expect(run.stdout).toMatch(
      /^\[ *\d+\.\ds\] zone-b-07 +noderepair ActionAccepted: Replace \S+ via openstack: /m,
    );
    expect(run.stdout).toMatch(
      /^\[ *\d+\.\ds\] zone-b-07 +machine Replaced: node group stand-in: server [0-9a-f]{8} gone from Nova \(fake\), created zone-b-07-r1 in zone-b$/m,
    );
  });

  it('prints `noderepair status` while the storm guard holds zone-c: each held node with its counts', () => {
    // The compiled `noderepair status`, with the controller's own kubeconfig and policy.
    const running = /^==> running: noderepair run .* --policy (\S+) --kubeconfig (\S+) /m.exec(
      run.stdout,
    );
    const block =
      /^noderepair status at +\d+\.\ds \(zone-storm\):\n {2}\$ noderepair status --kubeconfig (\S+) --policy (\S+)\n((?: {4}.*\n)+)/m.exec(
        run.stdout,
      );
    expect(running).not.toBeNull();
    expect(block).not.toBeNull();
    const [, policy, kubeconfig] = running ?? [];
    const [, statusKubeconfig, statusPolicy, table = ''] = block ?? [];
    expect([statusKubeconfig, statusPolicy]).toEqual([kubeconfig, policy]);
    const rows = table.split('\n').map((l) => l.slice(4));
    expect(rows[0]).toMatch(/^NAME +PHASE +CAUSE +STEP +NEXT +REASON$/);
    // Every node of the fleet has a row; each storm node is held with the zone's counts.
    for (const z of ZONES)
      for (let i = 1; i <= NODES_PER_ZONE; i++)
        expect(rows.some((r) => r.startsWith(`${nodeName(z, i)} `))).toBe(true);
    for (const n of [2, 4, 6, 8].map((i) => nodeName('zone-c', i))) {
      const row = rows.find((r) => r.startsWith(`${n} `)) ?? '';
      const held =
        /held: storm guard: (\d+) of 10 nodes unhealthy in topology\.kubernetes\.io\/zone=zone-c \(limit 3\)$/.exec(
          row,
        );
      expect(held, row).not.toBeNull();
      expect(Number(held?.[1])).toBeGreaterThanOrEqual(4);
    }
    // A node nothing is wrong with is not held.
    expect(rows.find((r) => r.startsWith('zone-c-01 '))).not.toContain('held:');
    // The report shows the same table.
    expect(dom).toContain('<pre class="noderepair-status" data-scenario="zone-storm">');
    expect(dom).toContain(rows.find((r) => r.startsWith('zone-c-02 ')));
  });

  it('prints plain lines, not terminal escapes, when stdout is not a terminal', () => {
    expect(run.stdout).not.toContain('\x1b[');
    expect(run.stdout).toMatch(/^\[ +\d+\.\ds\] zone-a-03 +Ready=Unknown/m);
  });

  it('summarises repairs per kind, times to repair and what the guard prevented', () => {
    const kinds = /^repairs per kind: SoftReboot (\d+), HardReboot (\d+), Replace (\d+)$/m.exec(
      run.stdout,
    );
    expect(kinds).not.toBeNull();
    const [soft, hard, replace] = (kinds ?? []).slice(1).map(Number);
    // kubelet stops, runtime down, flapping, never-returns: one soft reboot each.
    expect(soft).toBe(4);
    expect(hard).toBe(1);
    expect(replace).toBe(1);
    for (const n of ['zone-a-03', 'zone-a-06', 'zone-b-02', 'zone-b-07'])
      expect(run.stdout).toMatch(new RegExp(`^ {2}${n} +\\d+\\.\\ds {2}`, 'm'));
    expect(run.stdout).toMatch(/^storm guard: held 4 node\(s\), 4 reboot\(s\) prevented/m);
    expect(run.stdout).toContain('waited for, not rebooted (shutting down): zone-a-09');
    // Without --openstack real every server, the replacement's too, is on the fake Nova; the
    // one server deleted is the one noderepair's Replace deleted.
    expect(run.stdout).toMatch(
      /^openstack: FAKE Nova \(FakeOpenStack\) for 31 node\(s\): 5 reboot\(s\) accepted, 1 server\(s\) deleted$/m,
    );
    expect(run.stdout).not.toContain('REAL test bed');
  });

  it('writes a report that Chromium renders with every node', () => {
    expect(dom).toContain('<svg');
    const nodes = ZONES.flatMap((z) =>
      Array.from({ length: NODES_PER_ZONE }, (_, i) => nodeName(z, i + 1)),
    );
    const replacement = /replaced by (zone-b-07-r\d+)/.exec(run.stdout)?.[1];
    expect(replacement).toBeDefined();
    for (const n of [...nodes, replacement])
      expect(dom).toContain(`<g class="node-row" data-node="${n}">`);
    expect(dom).toContain('Every scenario behaved as expected.');
  });

  it('shows every repair action the demo printed, in the timeline and in the table', () => {
    // Every reboot Nova accepted, every replacement and every repair start/end the demo
    // printed while running must be drawn (a marker) and listed (a table row).
    const printed = [
      ...run.stdout.matchAll(
        /^\[ *\d+\.\ds\] (\S+) +(nova|noderepair|machine) (SoftReboot|HardReboot|Replaced|RepairStarted|RepairSucceeded):/gm,
      ),
    ];
    // 4 soft + 1 hard reboot, 1 replacement, 4 repairs started, 3 succeeded (the 4th was replaced).
    expect(printed.length).toBeGreaterThanOrEqual(4 + 1 + 1 + 4 + 3);
    for (const [, node, source, kind] of printed) {
      expect(dom).toMatch(
        new RegExp(`<tr class="action ${source}" data-node="${node}" data-kind="${kind}"`),
      );
      expect(dom).toMatch(
        new RegExp(
          `class="action" data-node="${node}" data-kind="${kind}" data-source="${source}"`,
        ),
      );
    }
    const html = readFileSync(report, 'utf8');
    expect(html).not.toMatch(/<script|<link /i);
  });
});
