// Reading `noderepair status`'s table back (pure): which nodes it shows held by the storm
// guard, with the counts it gives. The zone storm's verdict checks what a user would read.

export interface StormHoldRow {
  node: string;
  unhealthy: number;
  total: number;
  limit: number;
  /** `label=value` of the failure domain whose storm holds the node; '' for the fleet's. */
  domain: string;
}

const STORM_HOLD =
  /held: storm guard: (\d+) of (\d+) nodes unhealthy(?: in (\S+))? \(limit (\d+)\)/;

/** The storm-guard hold each of `nodes` has in the table (a node not held for a storm is absent). */
export function stormHolds(
  lines: readonly string[],
  nodes: readonly string[],
): Map<string, StormHoldRow> {
  const wanted = new Set(nodes);
  const out = new Map<string, StormHoldRow>();
  for (const line of lines) {
    const node = line.split(/\s+/, 1)[0] ?? '';
    if (!wanted.has(node)) continue;
    const m = STORM_HOLD.exec(line);
    if (m === null) continue;
    out.set(node, {
      node,
      unhealthy: Number(m[1]),
      total: Number(m[2]),
      limit: Number(m[4]),
      domain: m[3] ?? '',
    });
  }
  return out;
}

/** Every one of `nodes` is shown held by the storm in `zone` (of `zoneSize` nodes), counts over the limit. */
export function allHeldByZoneStorm(
  lines: readonly string[],
  nodes: readonly string[],
  zone: string,
  zoneSize: number,
): boolean {
  const holds = stormHolds(lines, nodes);
  return nodes.every((n) => {
    const h = holds.get(n);
    return (
      h !== undefined &&
      h.domain.endsWith(`=${zone}`) &&
      h.total === zoneSize &&
      h.unhealthy >= nodes.length &&
      h.unhealthy > h.limit
    );
  });
}
