// The layer rules of layers.config.mjs as `pnpm lint` runs them (eslint.config.js turns them
// into ESLint's no-restricted-imports): snippets linted as if they stood at a path of the
// tree, so the lint is known to bite on an import up a layer, across peers, into the
// package's face, into test code and past overlayfs-gen's list, and to let through what the
// order allows. That the real tree lints clean is `pnpm lint` itself (CI).
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './markdown.js';

const eslint = new ESLint({ cwd: repoRoot });

/** The no-restricted-imports messages ESLint gives `code` standing at `file` (from the root). */
async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  const messages = result!.messages;
  // Nothing else fires on these snippets: a parse error or an ignored path would hide the rule.
  expect(messages.filter((m) => m.ruleId !== 'no-restricted-imports')).toEqual([]);
  return messages.map((m) => m.message);
}

/** A module that imports `what` and re-exports it, so no other rule speaks. */
const importing = (...what: string[]) =>
  what.map((w, i) => `import { x${i} } from '${w}';\nexport { x${i} };\n`).join('');

/** ESLint's message for `source` refused by a pattern with `message`. */
const refused = (source: string, message: string) =>
  `'${source}' import is restricted from being used by a pattern. ${message}`;

describe('pnpm lint: the layer rules of layers.config.mjs', () => {
  it('fails an import up a layer (health -> autorepair), naming the rule and its file', async () => {
    expect(
      await restricted('packages/core/src/health/probe.ts', importing('../autorepair/x.js')),
    ).toEqual([
      refused(
        '../autorepair/x.js',
        'Layer rule (layers.config.mjs): core health must not import autorepair, a higher layer: a folder imports only its own files and lower layers.',
      ),
    ]);
  });

  it('fails an import of a peer in the same layer (mhc -> provider)', async () => {
    expect(
      await restricted('packages/core/src/mhc/probe.ts', importing('../provider/port.js')),
    ).toEqual([
      refused(
        '../provider/port.js',
        'Layer rule (layers.config.mjs): core mhc must not import provider, a peer in its layer: folders that share a layer know nothing of each other.',
      ),
    ]);
  });

  it('fails a product file importing test code, and lets a test do it', async () => {
    const code = importing('./reflector/memory-api.test-support.js', './queue.test.js');
    const message =
      'Layer rule (layers.config.mjs): product code never imports a test or a *.test-support.* file; only *.test.ts files do.';
    expect(await restricted('packages/core/src/runtime/probe.ts', code)).toEqual([
      refused('./reflector/memory-api.test-support.js', message),
      refused('./queue.test.js', message),
    ]);
    // A test support file is product code by these rules.
    expect(await restricted('packages/core/src/runtime/probe.test-support.ts', code)).toHaveLength(
      2,
    );
    // Tests, unit and integration, are free, as in docs/tools/layers.ts: test support, and
    // any folder of the package (an autorepair test runs the cli, a health test the provider).
    for (const test of ['probe.test.ts', 'probe.int.test.ts'])
      expect(
        await restricted(
          `packages/core/src/health/${test}`,
          importing('../runtime/reflector/memory-api.test-support.js', '../provider/port.js'),
        ),
      ).toEqual([]);
  });

  it("fails a folder importing the package's face or the package by name", async () => {
    expect(
      await restricted(
        'packages/core/src/testing/probe.ts',
        importing('../index.js', '@noderepair/core/health'),
      ),
    ).toEqual([
      refused(
        '../index.js',
        "Layer rule (layers.config.mjs): core testing must not import index.ts, the package's face, which stands on top.",
      ),
      refused(
        '@noderepair/core/health',
        'Layer rule (layers.config.mjs): core testing imports @noderepair/core by name; import the folder by relative path, so the layer rules see it.',
      ),
    ]);
  });

  it('counts the climb from a nested folder, and lets lower layers and its own folder through', async () => {
    // From runtime/reflector/, ../../health is the health folder, ../queue is runtime's own.
    expect(
      await restricted(
        'packages/core/src/runtime/reflector/probe.ts',
        importing('../../health/node.js', '../queue/queue.js', '../../kube/errors.js'),
      ),
    ).toEqual([
      refused(
        '../../health/node.js',
        'Layer rule (layers.config.mjs): core runtime must not import health, a higher layer: a folder imports only its own files and lower layers.',
      ),
    ]);
    expect(
      await restricted(
        'packages/core/src/autorepair/probe.ts',
        importing('../health/node.js', '../provider/port.js', '../codec/strict.js', './x.js'),
      ),
    ).toEqual([]);
    expect(
      await restricted('packages/core/src/index.ts', importing('./autorepair/x.js', './cli/x.js')),
    ).toEqual([]);
  });

  it('holds @noderepair/capo-remediation to its own order', async () => {
    expect(
      await restricted('packages/capo-remediation/src/api/probe.ts', importing('../capi/x.js')),
    ).toEqual([
      refused(
        '../capi/x.js',
        'Layer rule (layers.config.mjs): capo-remediation api must not import capi, a higher layer: a folder imports only its own files and lower layers.',
      ),
    ]);
  });

  it('lets overlayfs-gen import only the @noderepair entry points it uses', async () => {
    expect(
      await restricted(
        'packages/overlayfs-gen/src/config/probe.ts',
        importing('@noderepair/core/codec', '@noderepair/core', '@noderepair/core/health', 'yaml'),
      ),
    ).toEqual(
      ['@noderepair/core', '@noderepair/core/health'].map((s) =>
        refused(
          s,
          'Layer rule (layers.config.mjs): overlayfs-gen imports only @noderepair/core/codec of @noderepair (overlayfsGenUses); to use more, add it there.',
        ),
      ),
    );
  });
});
