// An events.k8s.io/v1 event recorder. Repeats of the same event (same object, type, reason,
// action, note) within the series window become one Event whose series.count grows, so a
// flapping node cannot flood etcd. Recording never throws: events are best-effort.
import type { KubeClient } from '../../kube/client.js';
import { NotFoundError } from '../../kube/errors.js';
import type { KubeObject } from '../../kube/object.js';
import { EventResource } from '../../kube/resource.js';
import type { KubeEvent, KubeObjectReference } from '../../kube/types.js';
import { systemClock, type Clock } from '../clock.js';
import { errorFields, silentLogger, type RuntimeLogger } from '../logger.js';

/** Options of an EventRecorder. */
export interface EventRecorderOptions {
  /** Controller name written to each Event, e.g. `noderepair.io/autorepair`; required. */
  reportingController: string;
  /** This replica's name (usually the pod name), written to each Event; required. */
  reportingInstance: string;
  /** Time source of event times and series windows; default the system clock. */
  clock?: Clock;
  /** Where failures to record are logged (as warnings); default silent. */
  logger?: RuntimeLogger;
  /** repeats within this window extend a series; default 30 min. */
  seriesWindowMs?: number;
  /** cap on remembered series (oldest dropped); default 4096. */
  maxSeries?: number;
  /** namespace for events about cluster-scoped objects; default "default". */
  clusterScopedNamespace?: string;
}

/** One event to record about an object. */
export interface EventInput {
  /** `Warning` for something a person should look at, `Normal` otherwise. */
  type: 'Normal' | 'Warning';
  /** CamelCase cause, e.g. `FenceFailed`. */
  reason: string;
  /** What the controller did or tried, e.g. `Fence`. */
  action: string;
  /** Human-readable detail; cut to 1024 characters. Never put secrets here. */
  note?: string;
  /** A second object involved, recorded as the Event's `related` reference. */
  related?: KubeObject;
}

const NOTE_MAX = 1024;

/** MicroTime: RFC 3339 with exactly six fractional digits, as the API requires. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * An ObjectReference to the object (apiVersion, kind, name, namespace, uid, resourceVersion,
 * whichever are set).
 */
export function objectReference(o: KubeObject): KubeObjectReference {
  const m = o.metadata ?? {};
  return {
    ...(o.apiVersion ? { apiVersion: o.apiVersion } : {}),
    ...(o.kind ? { kind: o.kind } : {}),
    ...(m.name ? { name: m.name } : {}),
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.uid ? { uid: m.uid } : {}),
    ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}),
  };
}

interface Series {
  name: string;
  namespace: string;
  count: number;
  lastMs: number;
}

/**
 * Records events.k8s.io/v1 Events; repeats of one event within the series window extend one Event's
 * series count instead of creating new Events. Recording never throws.
 */
export class EventRecorder {
  private readonly clock: Clock;
  private readonly log: RuntimeLogger;
  private readonly series = new Map<string, Series>();
  private seq = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: EventRecorderOptions,
  ) {
    if (!opts.reportingController || !opts.reportingInstance)
      throw new TypeError('EventRecorder: reportingController and reportingInstance are required');
    this.clock = opts.clock ?? systemClock;
    this.log = (opts.logger ?? silentLogger).child({ component: 'event-recorder' });
  }

  /** Records (or extends the series of) an event about regarding. Never rejects. */
  async record(regarding: KubeObject, ev: EventInput): Promise<void> {
    try {
      await this.recordOrThrow(regarding, ev);
    } catch (e) {
      this.log.warn(
        { ...errorFields(e), reason: ev.reason, object: regarding.metadata?.name },
        'could not record event',
      );
    }
  }

  private async recordOrThrow(regarding: KubeObject, ev: EventInput): Promise<void> {
    const now = this.clock.now();
    const note = (ev.note ?? '').slice(0, NOTE_MAX);
    const ref = objectReference(regarding);
    const key = [
      ref.uid ?? `${ref.namespace ?? ''}/${ref.name ?? ''}`,
      ev.type,
      ev.reason,
      ev.action,
      note,
    ].join('\u0000');
    const window = this.opts.seriesWindowMs ?? 30 * 60_000;
    const prev = this.series.get(key);
    if (prev && now - prev.lastMs <= window) {
      prev.count++;
      prev.lastMs = now;
      try {
        await this.client.patch(
          EventResource,
          prev.name,
          {
            type: 'merge',
            body: { series: { count: prev.count, lastObservedTime: microTime(now) } },
          },
          { namespace: prev.namespace },
        );
        return;
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        this.series.delete(key); // the Event expired (TTL); start a new one
      }
    }
    const namespace = ref.namespace ?? this.opts.clusterScopedNamespace ?? 'default';
    const base = (ref.name ?? 'object').slice(0, 200);
    const name = `${base}.${now.toString(16)}${(this.seq++ & 0xfff).toString(16)}`;
    const event: KubeEvent = {
      metadata: { name, namespace },
      eventTime: microTime(now),
      reportingController: this.opts.reportingController,
      reportingInstance: this.opts.reportingInstance,
      action: ev.action,
      reason: ev.reason,
      type: ev.type,
      ...(note ? { note } : {}),
      regarding: ref,
      ...(ev.related ? { related: objectReference(ev.related) } : {}),
    };
    await this.client.create(EventResource, event, { namespace });
    this.series.set(key, { name, namespace, count: 1, lastMs: now });
    const max = this.opts.maxSeries ?? 4096;
    if (this.series.size > max) {
      const oldest = this.series.keys().next().value;
      if (oldest !== undefined) this.series.delete(oldest);
    }
  }
}
