/** zone-a-03: the zone and a two-digit index, so names sort by zone then number. */
export function nodeName(zone: string, i: number): string {
  return `${zone}-${String(i).padStart(2, '0')}`;
}
