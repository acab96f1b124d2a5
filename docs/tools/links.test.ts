// Every relative link in the root README and the package READMEs points at a file that exists,
// and every #anchor at a heading that exists (GitHub's slugs), so no README sends a reader
// nowhere.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './reference.js';

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

function links(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  const found = [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  const refs = [...withoutCode.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm)].map((m) => m[1]!);
  return [...found, ...refs];
}

// The root README and every package's README (the package pages link the API reference).
const readmes = [
  'README.md',
  ...readdirSync(join(repoRoot, 'packages'))
    .sort()
    .map((d) => join('packages', d, 'README.md'))
    .filter((f) => existsSync(join(repoRoot, f))),
];

/** The relative links of one markdown file that lead nowhere: no such file, or no such heading. */
function brokenLinks(file: string): { relative: number; broken: string[] } {
  const text = readFileSync(file, 'utf8');
  const broken: string[] = [];
  const relative = links(text).filter((l) => !/^[a-z]+:/.test(l));
  for (const link of relative) {
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? file : join(dirname(file), decodeURI(path));
    if (!existsSync(target)) {
      broken.push(`${link}: no such file`);
      continue;
    }
    if (anchor === undefined) continue;
    const md = statSync(target).isDirectory() ? join(target, 'README.md') : target;
    if (!md.endsWith('.md') || !anchors(readFileSync(md, 'utf8')).has(anchor))
      broken.push(`${link}: no heading #${anchor}`);
  }
  return { relative: relative.length, broken };
}

describe('README links', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug('Causes (`classifyNode`)')).toBe('causes-classifynode');
    expect(slug('Tests and benchmark')).toBe('tests-and-benchmark');
  });

  it('checks the root README and the package READMEs', () => {
    expect(readmes).toContain('README.md');
    expect(readmes).toContain(join('packages', 'core', 'README.md'));
    // The root README links the docs; a checker that found no links would prove nothing.
    expect(brokenLinks(join(repoRoot, 'README.md')).relative).toBeGreaterThan(20);
  });

  it.each(readmes)('%s has relative links only to files and headings that exist', (f) => {
    expect(brokenLinks(join(repoRoot, f)).broken).toEqual([]);
  });
});
