// The demo from start to end: build the world, play the scenarios while the view shows every
// node, wait until every scenario's outcome is final (or time is up), judge each, print the
// summary, write the report, tear everything down. Resolves with the exit code.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { OpenStackMode } from './args.js';
import {
  addStatusRun,
  assignScenario,
  finish,
  newRecord,
  type DemoRecord,
} from './record/timeline.js';
import { renderReport } from './report/html.js';
import {
  demoScenarios,
  NODES_PER_ZONE,
  sleep,
  ZONES,
  type Scenario,
  type ScenarioContext,
} from './scenarios/index.js';
import { formatStatusRun, formatSummary } from './summary/format.js';
import { summarize, type ScenarioResult } from './summary/summarize.js';
import type { ScenarioLine } from './view/format.js';
import { liveView, plainView, type View } from './view/view.js';
import { Observer } from './world/observer.js';
import { startWorld, type World } from './world/world.js';

export interface DemoOptions {
  /** Write the HTML report here. */
  report?: string | undefined;
  /** Redraw in place (a terminal) or print a line per change. */
  live: boolean;
  /** Seconds the scenarios may take before the demo judges what it has. */
  timeoutSeconds: number;
  logDir?: string | undefined;
  /** Where every server lives: the fake Nova (default) or the real test bed. */
  openstack?: OpenStackMode | undefined;
  out: NodeJS.WriteStream;
  signal?: AbortSignal | undefined;
}

export async function runDemo(opts: DemoOptions): Promise<number> {
  const logDir = opts.logDir
    ? resolve(opts.logDir)
    : mkdtempSync(join(tmpdir(), 'noderepair-demo-'));
  const println = (l: string) => opts.out.write(`${l}\n`);
  let view: View = plainView(println);
  let observer: Observer | undefined;
  let record: DemoRecord | undefined;
  const scenarios = demoScenarios();
  const scenarioOf = new Map<string, Scenario>();
  for (const s of scenarios)
    if (s.id !== 'bystanders') for (const n of s.nodes) scenarioOf.set(n, s);

  view.progress(`logs in ${logDir}`);
  const world: World = await startWorld({
    logDir,
    zones: ZONES,
    nodesPerZone: NODES_PER_ZONE,
    progress: (l) => view.progress(l),
    openstack: opts.openstack ?? 'fake',
    onMachineEvent: (e) =>
      observer?.action({ node: e.node, source: 'machine', kind: e.kind, note: e.note }),
    onReplaced: (old, fresh) => {
      const s = scenarioOf.get(old.node);
      if (record && s) assignScenario(record, fresh.node, fresh.zone, s.id);
      observer?.action({
        node: old.node,
        source: 'machine',
        kind: 'Replaced',
        note: `node group stand-in: server ${old.serverId.slice(0, 8)} gone from Nova (${old.cloud.kind}), created ${fresh.node} in ${fresh.zone}`,
      });
      observer?.action(
        {
          node: fresh.node,
          source: 'machine',
          kind: 'Joined',
          note: `new machine (server ${fresh.serverId.slice(0, 8)}) replacing ${old.node}`,
        },
        fresh.zone,
      );
    },
  });

  const stopper = new AbortController();
  const onAbort = () => stopper.abort();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    const rec = newRecord(Date.now());
    record = rec;
    for (const [n, s] of scenarioOf) assignScenario(rec, n, world.machines.get(n).zone, s.id);
    const status = new Map<string, ScenarioLine['status']>(scenarios.map((s) => [s.id, 'waiting']));
    const played = new Set<string>();
    const lines = (): ScenarioLine[] =>
      scenarios.map((s) => ({
        title: s.title,
        expectation: s.expectation,
        status:
          status.get(s.id) === 'playing' && played.has(s.id) && s.settled(rec)
            ? 'settled'
            : (status.get(s.id) ?? 'waiting'),
      }));
    const obs = new Observer(world, rec, (c) => view.change(c));
    observer = obs;
    await obs.poll();
    view.progress(
      `${rec.nodes.size} nodes Ready; playing ${scenarios.length - 1} scenarios (time limit ${opts.timeoutSeconds}s)`,
    );
    if (opts.live)
      view = liveView(opts.out, { record: rec, now: () => obs.now(), scenarios: lines });
    else
      for (const s of scenarios)
        if (s.id !== 'bystanders') println(`    ${s.title}: ${s.expectation}`);
    obs.start();
    view.start();

    const ctx: ScenarioContext = {
      kubelet: (n) => world.machines.get(n).kubelet,
      powerCycles: (n) => world.machines.byNode.get(n)?.powerCycles ?? 0,
      rebooting: (n) => world.machines.byNode.get(n)?.rebooting ?? false,
      breakMachine: (n) => {
        world.machines.get(n).broken = true;
      },
      mark: (node, kind, note) => obs.action({ node, source: 'scenario', kind, note }),
      noderepairStatus: async () => {
        const t = obs.now();
        const out = await world.noderepairStatus();
        const lines = out.stdout.split('\n').filter((l) => l.trim() !== '');
        return { t, command: out.command, code: out.code, lines, stderr: out.stderr.trim() };
      },
      keepStatus: (scenario, run) => addStatusRun(rec, { scenario, ...run }),
      sleep: (ms) => sleep(ms, stopper.signal),
      signal: stopper.signal,
    };
    const plays = scenarios.map(async (s) => {
      await sleep(s.startAt, stopper.signal);
      if (stopper.signal.aborted) return;
      status.set(s.id, 'playing');
      try {
        await s.play(ctx);
      } catch (e) {
        obs.action({
          node: s.nodes[0] ?? '',
          source: 'scenario',
          kind: 'ScenarioError',
          note: (e as Error).message,
        });
      }
      played.add(s.id);
    });

    const deadline = Date.now() + opts.timeoutSeconds * 1000;
    while (!stopper.signal.aborted && Date.now() < deadline) {
      if (played.size === scenarios.length && scenarios.every((s) => s.settled(rec))) break;
      // Without noderepair nothing more will happen: judge now instead of at the time limit.
      if (world.controllerFailure() !== undefined) break;
      await sleep(500, stopper.signal);
    }
    const timedOut = Date.now() >= deadline;
    stopper.abort();
    await Promise.all(plays);
    obs.stop();
    await obs.poll();
    view.stop();
    finish(rec, obs.now());

    const results: ScenarioResult[] = scenarios.map((s) => {
      const v = s.verify(rec);
      const lines = !played.has(s.id)
        ? [...v.lines, 'FAIL the scenario did not finish playing']
        : v.lines;
      return {
        id: s.id,
        title: s.title,
        expectation: s.expectation,
        verdict: { ok: v.ok && played.has(s.id), lines },
      };
    });
    const summary = summarize(
      rec,
      results,
      world.clouds.map((c) => c.describeUse()),
    );
    println('');
    const failure = world.controllerFailure();
    if (failure !== undefined) println(failure);
    if (timedOut)
      println(
        `time limit of ${opts.timeoutSeconds}s reached before every scenario settled; judging what happened`,
      );
    // What an operator asking `noderepair status` saw while nodes were held, before the summary.
    for (const r of rec.statusRuns) for (const l of [...formatStatusRun(r), '']) println(l);
    for (const l of formatSummary(summary)) println(l);
    if (opts.report) {
      writeFileSync(opts.report, renderReport(rec, summary));
      println(`report: ${resolve(opts.report)}`);
    }
    if (!summary.ok) println(`controller log: ${join(logDir, 'noderepair-controller.log')}`);
    return summary.ok && failure === undefined ? 0 : 1;
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    observer?.stop();
    view.stop();
    await world.stop();
  }
}
