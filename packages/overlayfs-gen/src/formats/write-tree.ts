// The only I/O in the package besides the CLI: writing rendered output to a directory.
// Callers render everything first, so a config error never leaves half a tree behind.
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** One rendered file, ready for writeTree. */
export interface OutputFile {
  /** Path relative to the output directory. */
  readonly relPath: string;
  /** Permission bits to set, for example 0o644. */
  readonly mode: number;
  /** The file's text. */
  readonly content: string;
}

/** Write files atomically (temp file + rename), creating directories as needed. */
export async function writeTree(outDir: string, files: readonly OutputFile[]): Promise<string[]> {
  const written: string[] = [];
  for (const f of files) {
    const target = join(outDir, f.relPath);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}`;
    await writeFile(tmp, f.content, { mode: f.mode });
    await chmod(tmp, f.mode);
    await rename(tmp, target);
    written.push(target);
  }
  return written;
}
