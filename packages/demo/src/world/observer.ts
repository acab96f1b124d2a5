// Watches the world from the outside, as an operator would: lists the Nodes (Ready and
// noderepair's repair-state annotation), the Events noderepair wrote about them, and the
// requests Nova accepted. Everything goes into the DemoRecord; the record's changes go to
// the view.
import { EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { AutoRepairReportingController } from '@noderepair/core/autorepair';
import {
  addAction,
  observe,
  type ActionRecord,
  type RecordChange,
  type DemoRecord,
} from '../record/timeline.js';
import { nodeSample } from '../record/sample.js';
import type { World } from './world.js';

export class Observer {
  #timer: NodeJS.Timeout | undefined;
  #busy = false;
  /** Per cloud: how many of its accepted reboots are recorded. */
  readonly #novaSeen = new Map<string, number>();
  /** Event uid -> series count already recorded. */
  readonly #events = new Map<string, number>();
  /** Nova request id -> the ladder step noderepair's ActionAccepted Event says it was. */
  readonly #stepOf = new Map<string, string>();
  readonly #eventsApi: EventsV1Api;

  constructor(
    private readonly world: World,
    private readonly rec: DemoRecord,
    private readonly onChange: (c: RecordChange) => void,
  ) {
    this.#eventsApi = world.cp.kubeConfig.makeApiClient(EventsV1Api);
  }

  /** Demo-clock milliseconds. */
  now(): number {
    return Date.now() - this.rec.startedAt;
  }

  /** Records an action not seen through the API (a scenario's fault, a machine's boot). */
  action(a: Omit<ActionRecord, 't'>, zone = ''): void {
    this.onChange(addAction(this.rec, { ...a, t: this.now() }, zone));
  }

  start(): void {
    this.#timer = setInterval(() => void this.poll(), 1000);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One observation: Nova's log, the Nodes and noderepair's Events (once a second; cheap for the API server). */
  async poll(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      this.#pollNova();
      const list = await this.world.core.listNode();
      const t = this.now();
      const key = this.world.policy.annotations.state;
      for (const c of observe(
        this.rec,
        t,
        list.items.map((n) => nodeSample(n, key, this.rec.startedAt)),
      ))
        this.onChange(c);
      await this.#pollEvents();
    } catch {
      // A slow API server answer is not a demo failure; the next poll catches up.
    } finally {
      this.#busy = false;
    }
  }

  #pollNova(): void {
    for (const cloud of this.world.clouds) {
      const log = cloud.acceptedReboots();
      let i = this.#novaSeen.get(cloud.kind) ?? 0;
      for (; i < log.length; i++) {
        const e = log[i];
        if (!e) continue;
        const fromEvent = e.requestId ? this.#stepOf.get(e.requestId) : undefined;
        const kind = e.type ? (e.type === 'HARD' ? 'HardReboot' : 'SoftReboot') : fromEvent;
        // Nova's record has no SOFT/HARD: wait (in order) for noderepair's Event naming it.
        if (kind === undefined && Date.now() - e.at < 30_000) break;
        const node = this.world.serverNodes.get(e.serverId) ?? e.serverId;
        const server = e.serverId.slice(0, 8);
        this.onChange(
          addAction(this.rec, {
            t: e.at - this.rec.startedAt,
            node,
            source: 'nova',
            kind: kind ?? 'Reboot',
            note:
              cloud.kind === 'real'
                ? // The view cuts notes at 110 characters: the request id must fit.
                  `Nova (real, test bed) recorded reboot ${e.requestId ?? ''}: noderepair's ${fromEvent ?? '(no Event names it)'}`
                : `Nova (fake) accepted reboot ${e.type ?? ''} of server ${server}${e.requestId ? ` (${e.requestId})` : ''}`,
          }),
        );
      }
      this.#novaSeen.set(cloud.kind, i);
    }
  }

  async #pollEvents(): Promise<void> {
    const list = await this.#eventsApi.listEventForAllNamespaces();
    const ours = list.items
      .filter(
        (e) =>
          e.reportingController === AutoRepairReportingController && e.regarding?.kind === 'Node',
      )
      .sort((a, b) => eventTime(a) - eventTime(b));
    for (const e of ours) {
      const req = /\breq-[0-9a-f-]{36}\b/.exec(e.note ?? '')?.[0];
      if (req && e.reason === 'ActionAccepted' && e.action) this.#stepOf.set(req, e.action);
      const uid = e.metadata?.uid ?? '';
      const count = e.series?.count ?? 1;
      const seen = this.#events.get(uid) ?? 0;
      if (count <= seen) continue;
      this.#events.set(uid, count);
      // A series grows for repeats (e.g. StormGuardHeld every recheck): one record per Event
      // object, plus the repeats counted in the note, keeps the timeline readable.
      if (seen > 0 && e.reason === 'StormGuardHeld') continue;
      this.onChange(
        addAction(this.rec, {
          t: eventTime(e) - this.rec.startedAt,
          node: e.regarding?.name ?? '',
          source: 'noderepair',
          kind: e.reason ?? '',
          note: e.note ?? '',
        }),
      );
    }
  }
}

function eventTime(e: EventsV1Event): number {
  const t = e.series?.lastObservedTime ?? e.eventTime ?? e.metadata?.creationTimestamp;
  return t ? new Date(t).getTime() : Date.now();
}
