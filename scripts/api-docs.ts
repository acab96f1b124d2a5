// API reference pages (docs/tools/api-docs.ts): `pnpm api:docs` rewrites docs/api/ from the
// TSDoc comments of every published entry point. The package script builds first, so the
// pages describe the current sources. Rerun it after a change of a public API or its comments.
import { join } from 'node:path';
import { entryPoints } from '../docs/tools/api-entries.js';
import { renderMarkdown, writeDocModels } from '../docs/tools/api-docs.js';
import { repoRoot } from '../docs/tools/markdown.js';

// The doc models (.api.json) are an intermediate: kept out of the tree (gitignored).
const models = join(repoRoot, 'node_modules', '.cache', 'api-docs');
const out = join(repoRoot, 'docs', 'api');
const entries = entryPoints(repoRoot);
writeDocModels(entries, models);
const pages = renderMarkdown(entries, models, out);
console.log(`${entries.length} entry points, ${pages} pages in docs/api/`);
