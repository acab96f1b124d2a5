// API reference pages (docs/tools/api-docs.ts): `pnpm api:docs` rewrites docs/api/ from the
// TSDoc comments of every published entry point. The package script builds first, so the
// pages describe the current sources. Rerun it after a change of a public API or its comments.
// `api-docs.ts check` (part of `pnpm api:check`) fails while a page under docs/api/ is stale.
import { join, relative } from 'node:path';
import { entryPoints } from '../docs/tools/api-entries.js';
import { readPages, renderMarkdown, stalePages, writeDocModels } from '../docs/tools/api-docs.js';
import { repoRoot } from '../docs/tools/markdown.js';

const mode = process.argv[2] ?? 'update';
if (mode !== 'check' && mode !== 'update') {
  console.error('usage: api-docs.ts [check|update]');
  process.exit(2);
}
// The doc models (.api.json) are an intermediate: kept out of the tree (gitignored).
const models = join(repoRoot, 'node_modules', '.cache', 'api-docs');
const out = join(repoRoot, 'docs', 'api');
// check renders into a scratch folder (API Documenter empties its output folder) and compares.
const fresh = join(repoRoot, 'node_modules', '.cache', 'api-docs-pages');
const entries = entryPoints(repoRoot);
writeDocModels(entries, models);
const pages = renderMarkdown(entries, models, mode === 'check' ? fresh : out);
console.log(
  `${entries.length} entry points, ${pages} pages ${mode === 'check' ? 'rendered' : 'in docs/api/'}`,
);
if (mode === 'check') {
  const stale = stalePages(readPages(fresh), readPages(out));
  const lines = [
    ...stale.changed.map((f) => `changed   docs/api/${f}`),
    ...stale.missing.map((f) => `missing   docs/api/${f}`),
    ...stale.orphaned.map((f) => `orphaned  docs/api/${f}`),
  ];
  if (lines.length === 0) {
    console.log('API reference pages are up to date');
  } else {
    // The first pages say what kind of change it is; the new pages are all in the scratch folder.
    console.log(
      lines.slice(0, 20).join('\n') + (lines.length > 20 ? `\n... ${lines.length - 20} more` : ''),
    );
    console.error(
      `\n${lines.length} stale API reference page(s) (new: ${relative(repoRoot, fresh)}/)\nrun \`pnpm api:docs\` and commit docs/api`,
    );
    process.exit(1);
  }
}
