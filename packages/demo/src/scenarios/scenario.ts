// A scenario: one kind of failure the demo plays on some nodes, what noderepair is expected
// to do about it, and a check of that expectation against the record (pure, so it is unit
// tested on hand-made records, and the demo's exit code is the conjunction of the checks).
import type { FakeKubelet } from '@noderepair/envtest';
import type { DemoRecord, StatusRun } from '../record/timeline.js';

export interface ScenarioContext {
  kubelet(node: string): FakeKubelet;
  /** Completed reboots of the node's Nova server so far. */
  powerCycles(node: string): number;
  /** Nova is rebooting the node's server right now (its kubelet is down with it). */
  rebooting(node: string): boolean;
  /** The machine's hardware is dead: Nova can reboot it, its kubelet never returns. */
  breakMachine(node: string): void;
  /** Records a scenario step on the node's timeline. */
  mark(node: string, kind: string, note: string): void;
  /**
   * Runs the compiled `noderepair status` against the demo's cluster with the controller's
   * kubeconfig and policy (as an operator would ask it why nodes are not repaired).
   */
  noderepairStatus(): Promise<Omit<StatusRun, 'scenario'>>;
  /** Keeps a status output in the record: the summary and the report print it. */
  keepStatus(scenario: string, run: Omit<StatusRun, 'scenario'>): void;
  sleep(ms: number): Promise<void>;
  /** Aborted when the demo ends (time is up or every scenario settled). */
  signal: AbortSignal;
}

export interface Verdict {
  ok: boolean;
  /** What was checked and seen, one line each; failures say what was expected. */
  lines: string[];
}

export interface Scenario {
  readonly id: string;
  readonly title: string;
  /** What noderepair should do, in one line (shown in the view and the summary). */
  readonly expectation: string;
  /** The nodes it plays with (names at the start; a replaced node gets a successor). */
  readonly nodes: readonly string[];
  /** Milliseconds after the demo clock's zero when play() starts. */
  readonly startAt: number;
  /** Injects the failure; resolves when the scenario has nothing more to do. */
  play(ctx: ScenarioContext): Promise<void>;
  /** True when the outcome is final and verify() may judge (the demo waits for all). */
  settled(rec: DemoRecord): boolean;
  verify(rec: DemoRecord): Verdict;
}

/** Builds a verdict from named checks. */
export function verdict(checks: readonly [boolean, string][]): Verdict {
  return {
    ok: checks.every(([ok]) => ok),
    lines: checks.map(([ok, line]) => `${ok ? 'ok  ' : 'FAIL'} ${line}`),
  };
}

/** Sleeps unless the signal aborts first (resolves either way). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}
