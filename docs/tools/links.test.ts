// Every relative link in the root README and the package READMEs points at a file that exists,
// and every #anchor at a heading that exists (GitHub's slugs), so no README sends a reader
// nowhere.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
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

/** Where a link into this repository's main branch points in the checkout; undefined otherwise. */
export const REPO_BLOB = 'https://github.com/noderepair/noderepair/blob/main/';
function inRepo(link: string): string | undefined {
  return link.startsWith(REPO_BLOB) ? link.slice(REPO_BLOB.length) : undefined;
}

/**
 * The links of a README that ships in a package's tarball (and on the registry's page): a
 * relative link to anything but a heading of the same file leads nowhere there, so links go
 * to the repository on GitHub, and those must name a file and heading that exist here.
 */
function shippedLinkProblems(file: string): { links: number; problems: string[] } {
  const all = links(readFileSync(file, 'utf8'));
  const problems: string[] = [];
  for (const link of all) {
    if (link.startsWith('#')) continue;
    if (!/^[a-z]+:/.test(link)) {
      problems.push(`${link}: relative, broken in the tarball; link ${REPO_BLOB}<path>`);
      continue;
    }
    const path = inRepo(link);
    if (path === undefined) continue;
    const [target, anchor] = path.split('#') as [string, string | undefined];
    const abs = join(repoRoot, decodeURI(target));
    if (!existsSync(abs)) {
      problems.push(`${link}: no such file in the repository`);
      continue;
    }
    if (anchor === undefined) continue;
    const md = statSync(abs).isDirectory() ? join(abs, 'README.md') : abs;
    if (!md.endsWith('.md') || !anchors(readFileSync(md, 'utf8')).has(anchor))
      problems.push(`${link}: no heading #${anchor}`);
  }
  return { links: all.length, problems };
}

/** The READMEs that ship in a published package (package.json without private: true). */
const shipped = readmes.filter((f) => {
  const manifest = join(repoRoot, dirname(f), 'package.json');
  return (
    f !== 'README.md' &&
    existsSync(manifest) &&
    (JSON.parse(readFileSync(manifest, 'utf8')) as { private?: boolean }).private !== true
  );
});

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

  it('finds the five published packages, and tells a relative link from one into the repository', () => {
    expect(shipped.map((f) => dirname(f)).sort()).toEqual(
      ['capo-remediation', 'core', 'envtest', 'openstack', 'overlayfs-gen'].map((p) =>
        join('packages', p),
      ),
    );
    const dir = mkdtempSync(join(tmpdir(), 'links-'));
    try {
      const f = join(dir, 'README.md');
      writeFileSync(
        f,
        `# T\n[a](#t) [b](docs/x.md) [c](${REPO_BLOB}README.md#development) [d](${REPO_BLOB}nope.md) [e](${REPO_BLOB}README.md#no-such-heading)\n`,
      );
      expect(shippedLinkProblems(f).problems).toEqual([
        `docs/x.md: relative, broken in the tarball; link ${REPO_BLOB}<path>`,
        `${REPO_BLOB}nope.md: no such file in the repository`,
        `${REPO_BLOB}README.md#no-such-heading: no heading #no-such-heading`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('checks all the Markdown the packages ship: their READMEs (no package lists another .md in "files")', () => {
    // npm ships README.md itself, and whatever "files" names; a .md found there would carry
    // links this check does not read (the pack test checks the same in the installed tarballs).
    const more: string[] = [];
    const walk = (abs: string): string[] =>
      statSync(abs).isDirectory()
        ? readdirSync(abs).flatMap((e) => (e === 'node_modules' ? [] : walk(join(abs, e))))
        : [abs];
    for (const f of shipped) {
      const dir = join(repoRoot, dirname(f));
      const { files = [] } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        files?: string[];
      };
      for (const entry of files.filter((e) => !e.startsWith('!') && !/[*?]/.test(e))) {
        if (!existsSync(join(dir, entry))) continue;
        for (const abs of walk(join(dir, entry)))
          if (abs.toLowerCase().endsWith('.md') && abs !== join(dir, 'README.md'))
            more.push(abs.slice(repoRoot.length));
      }
    }
    expect(more).toEqual([]);
  });

  it.each(shipped)(
    '%s (shipped in its package) links the repository, not relative paths, and every link resolves',
    (f) => {
      const r = shippedLinkProblems(join(repoRoot, f));
      expect(r.problems).toEqual([]);
    },
  );

  // The commands' --help is read by npm users, who have no checkout: a page it points at is a
  // URL into the repository (resolved here against the checkout), never a repository path.
  const helpSources = [
    'packages/core/src/cli/noderepair.ts',
    'packages/core/src/cli/run.ts',
    'packages/core/src/cli/status.ts',
    'packages/envtest/src/cli.ts',
    'packages/overlayfs-gen/src/cli/args.ts',
  ];
  it.each(helpSources)('%s: the --help text names pages by URL, and each resolves', (f) => {
    const text = readFileSync(join(repoRoot, f), 'utf8');
    const help = [...text.matchAll(/(?:usage|USAGE|Usage)\s*=\s*`([^`]*)`/g)].map((m) => m[1]!);
    expect(help.length, 'a usage text').toBeGreaterThan(0);
    for (const h of help) {
      const urls = [...h.matchAll(/https:\/\/\S+?(?=[)\s,]|$)/g)].map((m) => m[0]);
      const bare = h.replace(/https:\/\/\S+/g, '').match(/\b[\w./-]*docs\/[\w./-]+\.md/g) ?? [];
      expect(bare, 'repository paths in --help').toEqual([]);
      const dir = mkdtempSync(join(tmpdir(), 'help-links-'));
      try {
        const md = join(dir, 'README.md');
        writeFileSync(md, urls.map((u) => `[x](${u})`).join('\n'));
        expect(shippedLinkProblems(md).problems).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
