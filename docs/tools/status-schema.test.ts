// `noderepair status --json` is documented field by field in the @noderepair/core README (the
// page that ships with the package): a field the command prints that the table does not name
// fails here, so the schema a script relies on cannot drift from the output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STATUS_JSON_SCHEMA_VERSION, statusJson } from '../../packages/core/src/cli/status.js';
import type { NodeStatus, StatusReport } from '../../packages/core/src/health/status.js';
import { repoRoot } from './markdown.js';

const T = Date.parse('2026-12-07T12:00:00Z');

/** Every optional field set, on one node or another. */
const nodes: NodeStatus[] = [
  {
    name: 'a',
    phase: 'Remediating',
    recordedPhase: 'Remediating',
    cause: 'KubeletUnreachable',
    signal: 'unhealthy',
    step: { index: 2, of: 2, action: 'HardReboot', attempt: 1, attempts: 2 },
    nextAt: T + 60_000,
    actsNow: true,
    reason: 'HardReboot sent',
    lastRemediation: { id: 'a/1', endedAt: T - 3_600_000, step: 0, result: 'Succeeded' },
    history: [
      {
        id: 'a/1',
        cause: { kind: 'KubeletUnreachable', message: 'Ready=Unknown' },
        startedAt: T - 4_000_000,
        endedAt: T - 3_600_000,
        durationMs: 400_000,
        outcome: 'Succeeded',
        steps: [],
      },
    ],
  },
  {
    name: 'b',
    phase: 'Unhealthy',
    cause: 'KubeletUnreachable',
    signal: 'unhealthy',
    actsNow: false,
    hold: {
      kind: 'actor',
      actor: 'ManualCordon',
      detail: 'cordoned',
      scope: 'actor',
      message: 'held',
      until: T + 1,
    },
    reason: 'held',
    stateError: 'not JSON',
  } as NodeStatus,
];
const report: StatusReport = {
  at: T,
  storm: { total: 2, unhealthy: 2, inFlight: 1, limit: 1, tripped: true },
  nodes,
};

/** The field paths the README's table names (`x`, `nodes[].x`). */
function documented(): Set<string> {
  const readme = readFileSync(join(repoRoot, 'packages/core/README.md'), 'utf8');
  const at = readme.indexOf('## `noderepair status --json`');
  expect(at).toBeGreaterThan(0);
  const section = readme.slice(at, readme.indexOf('\n## ', at + 1));
  return new Set([...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));
}

/** The field paths of a document: top-level keys and each node's keys. */
function printed(doc: Record<string, unknown>): string[] {
  const top = Object.keys(doc);
  const perNode = (doc['nodes'] as Record<string, unknown>[]).flatMap((n) =>
    Object.keys(n).map((k) => `nodes[].${k}`),
  );
  return [...new Set([...top, ...perNode])];
}

describe('noderepair status --json: the documented schema', () => {
  it('names every field the command prints, and no field it never prints', () => {
    const doc = JSON.parse(
      statusJson(report, nodes, {
        leaseHolder: 'noderepair/x',
        problems: ['bad mark'],
        latch: { kind: 'latched', since: T, reason: 'held too long' },
      }),
    ) as Record<string, unknown>;
    expect(doc['schemaVersion']).toBe(STATUS_JSON_SCHEMA_VERSION);
    const docs = documented();
    const fields = printed(doc);
    expect(fields.filter((f) => !docs.has(f))).toEqual([]);
    expect([...docs].filter((f) => !fields.includes(f))).toEqual([]);
  });

  it('prints every time as RFC 3339, an actor hold until too', () => {
    const doc = JSON.parse(statusJson(report, nodes)) as {
      at: string;
      nodes: {
        nextAt?: string;
        hold?: { until?: unknown };
        lastRemediation?: { endedAt: unknown };
      }[];
    };
    expect(doc.at).toBe('2026-12-07T12:00:00.000Z');
    expect(doc.nodes[0]!.nextAt).toBe('2026-12-07T12:01:00.000Z');
    expect(doc.nodes[0]!.lastRemediation?.endedAt).toBe('2026-12-07T11:00:00.000Z');
    expect(doc.nodes[1]!.hold?.until).toBe('2026-12-07T12:00:00.001Z');
  });
});
