// Parses systemd time spans as printed by systemd-analyze ("1min 1.135s", "850ms", "2h 3min").

const UNITS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSpanMs(span: string): number {
  let total = 0;
  const re = /([0-9]+(?:\.[0-9]+)?)(us|ms|s|min|h|d)\b/g;
  let m: RegExpExecArray | null;
  let any = false;
  while ((m = re.exec(span)) !== null) {
    total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? Number.NaN);
    any = true;
  }
  if (!any) throw new Error(`not a systemd time span: ${JSON.stringify(span)}`);
  return Math.round(total);
}

/** "Startup finished in K (kernel) + U (userspace) = T" -> {kernelMs, userspaceMs}. */
export function parseStartup(text: string): { kernelMs: number; userspaceMs: number } {
  const m = /Startup finished in (.+?) \(kernel\) \+ (.+?) \(userspace\)/.exec(text);
  if (!m?.[1] || !m[2]) throw new Error(`unexpected systemd-analyze time output: ${text}`);
  return { kernelMs: parseSpanMs(m[1]), userspaceMs: parseSpanMs(m[2]) };
}
