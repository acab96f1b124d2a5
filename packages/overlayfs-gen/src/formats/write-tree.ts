// The only I/O in the package besides the CLI: writing rendered output to a directory.
// Callers render everything first, so a config error never leaves half a tree behind.
import { chmod, mkdir, rename, stat, writeFile } from 'node:fs/promises';
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

const codeOf = (e: unknown): unknown => (e instanceof Error && 'code' in e ? e.code : undefined);

/**
 * mkdir -p that always ends. Node's mkdir({ recursive: true }) retries for ever when mkdir fails
 * with ENOENT although the parent exists (below /proc, for one: 100 % CPU, no error). Here each
 * directory is tried at most twice: once, and once more after its parent was made.
 */
async function makeDirs(dir: string): Promise<void> {
  const once = async (): Promise<boolean> => {
    try {
      await mkdir(dir);
      return true;
    } catch (e) {
      if (codeOf(e) === 'EEXIST') {
        if ((await stat(dir)).isDirectory()) return true;
        throw new Error(`cannot create directory ${dir}: a file of that name exists`);
      }
      if (codeOf(e) === 'ENOENT') return false;
      throw e;
    }
  };
  if (await once()) return;
  const parent = dirname(dir);
  if (parent === dir) throw new Error(`cannot create directory ${dir}`);
  await makeDirs(parent);
  if (!(await once())) {
    throw new Error(
      `cannot create directory ${dir}: ${parent} exists but does not accept new directories (a virtual file system such as /proc?)`,
    );
  }
}

/** Write files atomically (temp file + rename), creating directories as needed. */
export async function writeTree(outDir: string, files: readonly OutputFile[]): Promise<string[]> {
  const written: string[] = [];
  for (const f of files) {
    const target = join(outDir, f.relPath);
    await makeDirs(dirname(target));
    const tmp = `${target}.tmp-${process.pid}`;
    await writeFile(tmp, f.content, { mode: f.mode });
    await chmod(tmp, f.mode);
    await rename(tmp, target);
    written.push(target);
  }
  return written;
}
