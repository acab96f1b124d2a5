// The secret scan: every log line a controller printed and every Event the suite produced is
// searched for every credential the suite knows (the clouds.yaml password, the application
// credential secret, Keystone tokens, ServiceAccount and admin bearer tokens).
import type { KubeEvent } from '@noderepair/core/kube';

export interface Leak {
  readonly where: string;
  /** Only a prefix of the secret, so the report does not leak it either. */
  readonly secretPrefix: string;
}

export interface ScanResult {
  readonly linesScanned: number;
  readonly eventsScanned: number;
  readonly secrets: number;
  readonly leaks: Leak[];
}

/** Event text a human or a log shipper would see. */
export function eventText(e: KubeEvent): string {
  return JSON.stringify({
    reason: e.reason,
    note: e.note,
    action: e.action,
    regarding: e.regarding,
    related: e.related,
    annotations: e.metadata?.annotations,
  });
}

export function scanForSecrets(
  lines: readonly string[],
  events: readonly KubeEvent[],
  secrets: Iterable<string>,
): ScanResult {
  // Very short values would match by accident; every real credential here is long.
  const list = [...new Set(secrets)].filter((s) => s.length >= 8);
  const leaks: Leak[] = [];
  const check = (text: string, where: string) => {
    for (const s of list)
      if (text.includes(s)) leaks.push({ where, secretPrefix: `${s.slice(0, 4)}...` });
  };
  lines.forEach((l, i) => check(l, `log line ${i + 1}: ${l.slice(0, 80)}`));
  for (const e of events) check(eventText(e), `event ${e.metadata?.namespace}/${e.metadata?.name}`);
  return { linesScanned: lines.length, eventsScanned: events.length, secrets: list.length, leaks };
}
