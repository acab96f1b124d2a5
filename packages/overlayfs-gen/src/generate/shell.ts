/**
 * Quote a string for POSIX sh. Config values are validated to a safe charset before they get
 * here; quoting anyway means a rule slip still cannot become command injection.
 */
export function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
