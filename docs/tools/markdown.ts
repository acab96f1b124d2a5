// Markdown output shared by the reference generators: GitHub tables, and prettier with the
// repository's own settings, so generated text is byte-for-byte what `prettier --write` keeps.
import * as prettier from 'prettier';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
export const code = (s: string): string => `\`${s}\``;

export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Formats generated markdown exactly as `prettier --write` formats the README. */
export async function formatMarkdown(md: string): Promise<string> {
  const config = (await prettier.resolveConfig(`${repoRoot}README.md`)) ?? {};
  return prettier.format(md, { ...config, parser: 'markdown' });
}
