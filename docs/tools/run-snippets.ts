// Running the doc snippets marked ```ts run, as a consumer would run them: each one compiled
// to JavaScript on its own and run by node in a throwaway ESM project whose @noderepair/*
// imports resolve through the packages' exports to the built dist/ (no "source" condition,
// no tsx), so what a reader pastes is what runs here. Snippets state their results with
// node:assert; a snippet that throws, exits non-zero or writes to stderr fails.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { consumerProject, type Snippet } from './snippets.js';

export interface SnippetRun {
  readonly snippet: Snippet;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runSnippets(root: string, snippets: readonly Snippet[]): SnippetRun[] {
  const { dir } = consumerProject(root);
  try {
    return snippets.map((s) => {
      const js = ts.transpileModule(s.code, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
      }).outputText;
      const path = join(dir, `${s.file.replace(/[/\\.]/g, '_')}_L${s.line}.js`);
      writeFileSync(path, js);
      const r = spawnSync(process.execPath, [path], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        // Not the test runner's NODE_OPTIONS (vitest's loaders): a plain node, as a reader has.
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
      });
      return { snippet: s, status: r.status, stdout: r.stdout, stderr: r.stderr };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
