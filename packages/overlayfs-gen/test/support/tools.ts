// Runs the real shellcheck and systemd-analyze on generated files. Missing tools fail the
// test loudly (install them from ../../apt-packages.txt); nothing is skipped.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { GeneratedFile } from '../../src/index.js';

export interface ToolResult {
  readonly status: number | null;
  readonly output: string;
}

function run(cmd: string, args: string[], cwd?: string): ToolResult {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd, timeout: 120_000 });
  if (r.error) throw new Error(`${cmd} could not run (${r.error.message}); install it (see packages/overlayfs-gen/apt-packages.txt)`);
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Materialise generated files below root, the way they land on the node. */
export function writeRoot(root: string, files: readonly GeneratedFile[]): void {
  for (const f of files) {
    const p = join(root, f.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
    chmodSync(p, f.mode);
  }
}

/** shellcheck -s sh on every script of every bundle, in one run (the tool's start-up is slow). */
export function shellcheck(...bundles: (readonly GeneratedFile[])[]): ToolResult {
  const dir = mkdtempSync(join(tmpdir(), 'ofs-shellcheck-'));
  try {
    const paths: string[] = [];
    bundles.forEach((files, i) => {
      const scripts = files.filter((f) => f.content.startsWith('#!/bin/sh'));
      writeRoot(join(dir, String(i)), scripts);
      paths.push(...scripts.map((f) => join(String(i), f.path)));
    });
    // -s sh: POSIX only (no bashisms); the default severity includes style warnings.
    return run('shellcheck', ['-s', 'sh', ...paths], dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let verifyRoot: string | undefined;

/** A root with the host's systemd units (targets our units refer to), made once per worker. */
function baseRoot(): string {
  if (verifyRoot === undefined) {
    verifyRoot = mkdtempSync(join(tmpdir(), 'ofs-verify-'));
    cpSync('/usr/lib/systemd/system', join(verifyRoot, 'usr/lib/systemd/system'), { recursive: true, verbatimSymlinks: true });
    mkdirSync(join(verifyRoot, 'bin'), { recursive: true });
    cpSync('/bin/true', join(verifyRoot, 'bin/true'));
    // ExecStart of systemd-machine-id-commit.service, which gets one of our drop-ins.
    mkdirSync(join(verifyRoot, 'usr/bin'), { recursive: true });
    cpSync('/usr/bin/systemd-machine-id-setup', join(verifyRoot, 'usr/bin/systemd-machine-id-setup'));
    const root = verifyRoot;
    process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  }
  rmSync(join(verifyRoot, 'etc'), { recursive: true, force: true });
  rmSync(join(verifyRoot, 'usr/local'), { recursive: true, force: true });
  return verifyRoot;
}

/**
 * `systemd-analyze verify --root` on every generated unit plus every unit that receives a
 * drop-in (given a minimal stand-in unit so the drop-in is parsed in context). verify reports
 * parse problems as warnings with exit 0, so callers must require empty output too.
 */
export function systemdVerify(files: readonly GeneratedFile[]): ToolResult {
  const root = baseRoot();
  writeRoot(root, files);
  const units = new Set<string>();
  for (const f of files) {
    const m = /^\/etc\/systemd\/system\/([^/]+\.service)(?:\.d\/[^/]+\.conf)?$/.exec(f.path);
    if (m?.[1]) units.add(m[1]);
  }
  for (const u of units) {
    const p = join(root, 'etc/systemd/system', u);
    if (!existsSync(p) && !existsSync(join(root, 'usr/lib/systemd/system', u))) writeFileSync(p, '[Service]\nExecStart=/bin/true\n');
  }
  return run('systemd-analyze', ['verify', `--root=${root}`, ...[...units].map((u) => join(root, 'etc/systemd/system', u))]);
}
