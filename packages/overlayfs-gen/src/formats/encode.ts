// Cluster API's KubeadmConfig limits files[].content to 10240 characters; bigger files must
// be compressed (encoding: gzip+base64) or come from a Secret. We compress only what needs it
// so small files stay readable in the manifest.
import { gunzipSync, gzipSync } from 'node:zlib';
import { either } from 'fp-ts';
import type { Either } from 'fp-ts/Either';
import type { GeneratedFile } from '../generate/index.js';

/**
 * Longest inline file content, in characters: longer files are gzip+base64-encoded, and one still
 * longer after that is an error.
 */
export const MAX_CONTENT_CHARS = 10240;

/** A file entry as cloud-init write_files and KubeadmConfig files take it. */
export interface EncodedFile {
  /** Absolute path on the node. */
  readonly path: string;
  /** Octal string, e.g. "0755": YAML would read a bare 0755 as a number. */
  readonly permissions: string;
  /** Always `root:root`. */
  readonly owner: string;
  /** Set when the content had to be compressed; absent for plain text. */
  readonly encoding?: 'gzip+base64';
  /** The text, or its gzip+base64 encoding when `encoding` says so. */
  readonly content: string;
}

/** The octal permissions string (for example `0755`) of a mode number. */
export function permissionsOf(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

/**
 * Inlines a file, compressing it when longer than MAX_CONTENT_CHARS; Left, naming the path, when it
 * is too long even then. Deterministic output.
 */
export function encodeFile(f: GeneratedFile): Either<string, EncodedFile> {
  const base = { path: f.path, permissions: permissionsOf(f.mode), owner: 'root:root' };
  if (f.content.length <= MAX_CONTENT_CHARS) return either.right({ ...base, content: f.content });
  // level 9 and a zero mtime (node's default) keep the output deterministic.
  const content = gzipSync(Buffer.from(f.content, 'utf8'), { level: 9 }).toString('base64');
  if (content.length > MAX_CONTENT_CHARS) {
    return either.left(
      `${f.path}: ${content.length} characters even after gzip+base64, over the ${MAX_CONTENT_CHARS}-character limit; deliver it with contentFrom.secret`,
    );
  }
  return either.right({ ...base, encoding: 'gzip+base64', content });
}

/** encodeFile for each file, in order; the first Left wins. */
export function encodeFiles(files: readonly GeneratedFile[]): Either<string, EncodedFile[]> {
  const out: EncodedFile[] = [];
  for (const f of files) {
    const e = encodeFile(f);
    if (either.isLeft(e)) return e;
    out.push(e.right);
  }
  return either.right(out);
}

/** Inverse of encodeFile: what cloud-init does when it writes the file. */
export function decodeContent(f: Pick<EncodedFile, 'encoding' | 'content'>): string {
  if (f.encoding === 'gzip+base64') {
    return gunzipSync(Buffer.from(f.content, 'base64')).toString('utf8');
  }
  return f.content;
}
