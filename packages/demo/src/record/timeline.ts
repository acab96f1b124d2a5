// The demo's record of what happened: for every node, the segments of (Ready, repair phase)
// it went through and the actions taken on it, on a clock that starts with the scenarios.
// Pure data plus pure updates: the view, the summary, the verdicts and the HTML report all
// read this one record, so what the report draws is what the verdicts checked.

/** The Node's Ready condition as the API shows it; Gone once the Node object is deleted. */
export type ReadyStatus = 'True' | 'False' | 'Unknown' | 'None' | 'Gone';

/** One observation of a Node (from the API server) at a moment. */
export interface NodeSample {
  name: string;
  zone: string;
  ready: ReadyStatus;
  /** Ready condition's message (the kubelet's or the node lifecycle controller's). */
  readyMessage: string;
  /** noderepair's phase from the repair-state annotation; Healthy when none yet. */
  phase: string;
  /** The cause of the repair in progress (remediation.cause), if any. */
  cause: string;
  /** The ladder action in progress (SoftReboot, HardReboot, Replace), if any. */
  step: string;
  /** Milliseconds (demo clock) when the phase was entered, if known. */
  phaseSince: number | undefined;
  unschedulable: boolean;
  /** Ready condition's lastTransitionTime (demo clock): when the kubelet's status changed. */
  readySince?: number | undefined;
  /** NotReady episodes noderepair remembers in its annotation (flap detection). */
  episodes?: number | undefined;
}

/** Who did it: noderepair (its Events), Nova (accepted actions), the scenario, the machine. */
export type ActionSource = 'noderepair' | 'nova' | 'scenario' | 'machine';

export interface ActionRecord {
  /** Milliseconds since the demo clock started. */
  t: number;
  node: string;
  source: ActionSource;
  /** Event reason (Cordoned, RepairStarted, ...), or SoftReboot/HardReboot (Nova), or a scenario step. */
  kind: string;
  note: string;
}

export interface Segment {
  from: number;
  /** Exclusive end; undefined while it lasts. */
  to: number | undefined;
  ready: ReadyStatus;
  phase: string;
}

export interface NodeTimeline {
  name: string;
  zone: string;
  /** The scenario that plays with this node, if any. */
  scenario: string | undefined;
  segments: Segment[];
  actions: ActionRecord[];
  last: NodeSample | undefined;
  /** Every repair cause and Ready message seen, first-seen order (no duplicates). */
  causes: string[];
  messages: string[];
  /** Ready transitions as the API server dated them (lastTransitionTime), in order. */
  transitions: { t: number; ready: ReadyStatus }[];
  /** The most NotReady episodes noderepair counted at once. */
  maxEpisodes: number;
}

/** One run of the compiled `noderepair status` a scenario kept (printed in the summary and report). */
export interface StatusRun {
  /** Demo-clock ms when it ran. */
  t: number;
  /** The scenario that ran it. */
  scenario: string;
  /** The command line as a user would type it. */
  command: string;
  code: number | null;
  /** Its stdout, one line each (the table). */
  lines: string[];
  /** Its stderr (warnings, or why it failed). */
  stderr: string;
}

export interface DemoRecord {
  /** Wall-clock epoch ms of the demo clock's zero. */
  startedAt: number;
  /** Demo-clock ms of the last observation. */
  now: number;
  nodes: Map<string, NodeTimeline>;
  /** Every action in order. */
  actions: ActionRecord[];
  /** The `noderepair status` outputs the scenarios kept, in order. */
  statusRuns: StatusRun[];
}

export function newRecord(startedAt: number): DemoRecord {
  return { startedAt, now: 0, nodes: new Map(), actions: [], statusRuns: [] };
}

/** A change worth a line in the plain view. */
export type RecordChange =
  | { type: 'node'; t: number; sample: NodeSample; previous: NodeSample | undefined }
  | { type: 'gone'; t: number; node: string }
  | { type: 'action'; action: ActionRecord };

function timelineFor(rec: DemoRecord, name: string, zone: string): NodeTimeline {
  let tl = rec.nodes.get(name);
  if (!tl) {
    tl = {
      name,
      zone,
      scenario: undefined,
      segments: [],
      actions: [],
      last: undefined,
      causes: [],
      messages: [],
      transitions: [],
      maxEpisodes: 0,
    };
    rec.nodes.set(name, tl);
  }
  return tl;
}

/** Marks which scenario plays with a node (shown in the view and the report). */
export function assignScenario(
  rec: DemoRecord,
  node: string,
  zone: string,
  scenario: string,
): void {
  timelineFor(rec, node, zone).scenario = scenario;
}

/** What the view and the summary care about changed (not heartbeats, not timers). */
export function sampleChanged(a: NodeSample | undefined, b: NodeSample): boolean {
  return (
    !a ||
    a.ready !== b.ready ||
    a.readyMessage !== b.readyMessage ||
    a.phase !== b.phase ||
    a.cause !== b.cause ||
    a.step !== b.step ||
    a.unschedulable !== b.unschedulable
  );
}

function extend(tl: NodeTimeline, t: number, ready: ReadyStatus, phase: string): void {
  const open = tl.segments[tl.segments.length - 1];
  if (open && open.to === undefined && open.ready === ready && open.phase === phase) return;
  if (open && open.to === undefined) open.to = t;
  tl.segments.push({ from: t, to: undefined, ready, phase });
}

/**
 * Folds one observation of the whole fleet into the record. Nodes missing from the list
 * (deleted) turn Gone. Returns the changes, in node-name order.
 */
export function observe(
  rec: DemoRecord,
  t: number,
  samples: readonly NodeSample[],
): RecordChange[] {
  rec.now = Math.max(rec.now, t);
  const changes: RecordChange[] = [];
  const seen = new Set<string>();
  for (const s of [...samples].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    seen.add(s.name);
    const tl = timelineFor(rec, s.name, s.zone);
    if (sampleChanged(tl.last, s)) changes.push({ type: 'node', t, sample: s, previous: tl.last });
    extend(tl, t, s.ready, s.phase);
    if (s.cause && !tl.causes.includes(s.cause)) tl.causes.push(s.cause);
    if (s.readyMessage && !tl.messages.includes(s.readyMessage)) tl.messages.push(s.readyMessage);
    if (!tl.zone) tl.zone = s.zone;
    const lastTr = tl.transitions[tl.transitions.length - 1];
    if (
      s.readySince !== undefined &&
      (lastTr === undefined || lastTr.t !== s.readySince || lastTr.ready !== s.ready)
    )
      tl.transitions.push({ t: s.readySince, ready: s.ready });
    tl.maxEpisodes = Math.max(tl.maxEpisodes, s.episodes ?? 0);
    tl.last = s;
  }
  for (const tl of rec.nodes.values()) {
    if (seen.has(tl.name) || tl.last === undefined || tl.last.ready === 'Gone') continue;
    const gone: NodeSample = {
      ...tl.last,
      ready: 'Gone',
      phase: 'Gone',
      cause: '',
      step: '',
      readyMessage: 'Node deleted',
    };
    extend(tl, t, 'Gone', 'Gone');
    tl.last = gone;
    changes.push({ type: 'gone', t, node: tl.name });
  }
  return changes;
}

/** Adds an action (to its node's timeline and the global list); returns it as a change. */
export function addAction(rec: DemoRecord, a: ActionRecord, zone = ''): RecordChange {
  rec.now = Math.max(rec.now, a.t);
  timelineFor(rec, a.node, zone).actions.push(a);
  rec.actions.push(a);
  return { type: 'action', action: a };
}

/** Keeps a `noderepair status` run. */
export function addStatusRun(rec: DemoRecord, run: StatusRun): void {
  rec.now = Math.max(rec.now, run.t);
  rec.statusRuns.push(run);
}

/** Closes every open segment at the end of the demo. */
export function finish(rec: DemoRecord, t: number): void {
  rec.now = Math.max(rec.now, t);
  for (const tl of rec.nodes.values()) {
    const open = tl.segments[tl.segments.length - 1];
    if (open && open.to === undefined) open.to = rec.now;
  }
}

// ---- queries used by the verdicts and the summary ---------------------------------------

export function actionsOf(
  rec: DemoRecord,
  node: string,
  kind?: string,
  source?: ActionSource,
): ActionRecord[] {
  return (rec.nodes.get(node)?.actions ?? []).filter(
    (a) => (kind === undefined || a.kind === kind) && (source === undefined || a.source === source),
  );
}

/** Reboots Nova accepted for a node (SoftReboot and HardReboot actions of source nova). */
export function novaReboots(rec: DemoRecord, node: string): ActionRecord[] {
  return actionsOf(rec, node).filter(
    // "Reboot": a reboot in Nova's records whose SOFT/HARD nobody named (see world/observer.ts).
    (a) =>
      a.source === 'nova' &&
      (a.kind === 'SoftReboot' || a.kind === 'HardReboot' || a.kind === 'Reboot'),
  );
}

export function everSeen(rec: DemoRecord, node: string, pred: (s: Segment) => boolean): boolean {
  return (rec.nodes.get(node)?.segments ?? []).some(pred);
}

/** First demo-clock time a segment matching pred began, at or after `after`. */
export function firstTime(
  rec: DemoRecord,
  node: string,
  pred: (s: Segment) => boolean,
  after = 0,
): number | undefined {
  return (rec.nodes.get(node)?.segments ?? []).find((s) => s.from >= after && pred(s))?.from;
}

/** The node is Ready, Healthy (noderepair-wise) and schedulable right now. */
export function isSettledHealthy(rec: DemoRecord, node: string): boolean {
  const s = rec.nodes.get(node)?.last;
  return s !== undefined && s.ready === 'True' && s.phase === 'Healthy' && !s.unschedulable;
}
