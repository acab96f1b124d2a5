// Flat config: typescript-eslint's recommended rules over every package and example, and the
// architecture's layering (layers.config.mjs) as ESLint's own no-restricted-imports.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layeredPackages, overlayfsGenUses } from './layers.config.mjs';

const RULE_FILE = 'layers.config.mjs';
const repoRoot = fileURLToPath(new URL('.', import.meta.url));
/** Test files: the layer rules leave their imports alone but for the rules below. */
const TESTS = ['**/*.test.ts'];

/** Product code (every .ts file but a test) never imports test code. */
const testCode = {
  group: ['*.test.*', '*.test-support.*'],
  message: `Layer rule (${RULE_FILE}): product code never imports a test or a *.test-support.* file; only *.test.ts files do.`,
};

/** The folders under `dir` and below, relative to `dir` ('/'-separated). */
function foldersUnder(dir, under = '') {
  return readdirSync(join(dir, under), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const rel = under === '' ? e.name : `${under}/${e.name}`;
      return [rel, ...foldersUnder(dir, rel)];
    });
}

/**
 * The no-restricted-imports blocks of one layered package: one per folder of its src (and per
 * file directly under src), since a relative import says how far up it climbs: from
 * runtime/reflector/, `../../autorepair/x.js` is the autorepair folder while `../autorepair/`
 * would be runtime's own. Each block forbids the folders (or top-level files) the order does
 * not let its unit import, test code, and the package's own name.
 */
function layerBlocks({ name, src, layers }) {
  const rank = new Map(layers.flatMap((entry, i) => [entry].flat().map((u) => [u, i])));
  const top = readdirSync(join(repoRoot, src), { withFileTypes: true });
  const topFiles = top
    .filter((e) => e.isFile() && /\.ts$/.test(e.name) && !/\.(d|test)\.ts$/.test(e.name))
    .map((e) => e.name);
  const folders = foldersUnder(join(repoRoot, src));
  // Every unit the order names or the tree holds: a unit the order misses is in no layer.
  const units = [
    ...new Set([...rank.keys(), ...topFiles, ...folders.filter((f) => !f.includes('/'))]),
  ];
  const short = name.replace(/^@noderepair\//, '');
  /** Why `from` may not import `to`, or undefined when it may. */
  const why = (from, to) => {
    if (from === to) return undefined;
    if (!rank.has(from)) return `${from} is in no layer: place it in the order`;
    if (!rank.has(to)) return `${to} is in no layer: place it in the order`;
    if (rank.get(to) > rank.get(from))
      return /\.ts$/.test(to)
        ? `the package's face, which stands on top`
        : 'a higher layer: a folder imports only its own files and lower layers';
    if (rank.get(to) === rank.get(from))
      return 'a peer in its layer: folders that share a layer know nothing of each other';
    return undefined;
  };
  /** The no-restricted-imports options for a file of `unit`, whose imports reach src by `up`. */
  const options = (unit, up) => ({
    patterns: [
      ...units.flatMap((to) => {
        const reason = why(unit, to);
        if (reason === undefined) return [];
        const stem = to.replace(/\.ts$/, '');
        // `../autorepair` also matches `../autorepair/x.js` and below (gitignore semantics).
        const group = stem === to ? [`${up}${to}`] : [`${up}${stem}`, `${up}${stem}.*`];
        return [
          {
            group,
            message: `Layer rule (${RULE_FILE}): ${short} ${unit} must not import ${to}, ${reason}.`,
          },
        ];
      }),
      testCode,
      {
        group: [name],
        message: `Layer rule (${RULE_FILE}): ${short} ${unit} imports ${name} by name; import the folder by relative path, so the layer rules see it.`,
      },
    ],
  });
  return [
    ...topFiles.map((f) => ({
      name: `layers/${short}/${f}`,
      files: [`${src}/${f}`],
      rules: { 'no-restricted-imports': ['error', options(f, './')] },
    })),
    ...folders.map((folder) => ({
      name: `layers/${short}/${folder}`,
      files: [`${src}/${folder}/*.ts`],
      ignores: TESTS,
      rules: {
        'no-restricted-imports': [
          'error',
          options(folder.split('/')[0], '../'.repeat(folder.split('/').length)),
        ],
      },
    })),
  ];
}

/** Escapes `s` for a regular expression. */
const literally = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // TypeScript (and Node for the .mjs scripts) know their globals; typescript-eslint
      // recommends leaving undefined names to the compiler.
      'no-undef': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // Layering (layers.config.mjs). Flat config gives a file the options of the LAST block that
  // sets a rule for it, so each file set below is disjoint and carries all its patterns.
  // Product code of every other package: no test code.
  {
    name: 'layers/test-code',
    files: ['packages/*/src/**/*.ts'],
    ignores: [
      ...TESTS,
      ...layeredPackages.map((p) => `${p.src}/**`),
      'packages/overlayfs-gen/src/**',
    ],
    rules: { 'no-restricted-imports': ['error', { patterns: [testCode] }] },
  },
  ...layeredPackages.flatMap(layerBlocks),
  // overlayfs-gen's product code imports only the @noderepair entry points it uses.
  {
    name: 'layers/overlayfs-gen',
    files: ['packages/overlayfs-gen/src/**/*.ts'],
    ignores: TESTS,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            testCode,
            {
              regex: `^(?!(?:${overlayfsGenUses.map(literally).join('|')})$)@noderepair/`,
              message: `Layer rule (${RULE_FILE}): overlayfs-gen imports only ${overlayfsGenUses.join(', ')} of @noderepair (overlayfsGenUses); to use more, add it there.`,
            },
          ],
        },
      ],
    },
  },
);
