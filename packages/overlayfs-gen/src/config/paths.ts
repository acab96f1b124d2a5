// Rules for file-system paths that end up inside generated shell and unit files. The
// charset is deliberately small: every path is also quoted, but a path that needs quoting
// tricks (spaces, quotes, $, backslashes, commas and colons that overlayfs options split on,
// % that systemd expands) is rejected outright rather than escaped.

/** Characters allowed in a path component. */
const SAFE_COMPONENT = /^[A-Za-z0-9._@+=-]+$/;

/** Never overlaid, never bound: kernel and runtime file systems, the boot partition. */
export const FORBIDDEN_ROOTS: readonly string[] = ['/proc', '/sys', '/dev', '/run', '/boot'];

export const MAX_PATH_LENGTH = 1024;

export interface PathViolation {
  readonly rule: string;
  readonly message: string;
}

/** True when `inner` equals `outer` or lies below it (component-wise, not by string prefix). */
export function isWithin(inner: string, outer: string): boolean {
  if (outer === '/') return inner.startsWith('/');
  return inner === outer || inner.startsWith(`${outer}/`);
}

/** Syntax rules every path obeys: absolute, normalised, quotable. */
export function checkPathSyntax(p: string): PathViolation | undefined {
  if (p.length === 0) return { rule: 'non-empty', message: 'must not be empty' };
  if (p.length > MAX_PATH_LENGTH) return { rule: 'too-long', message: `must be at most ${MAX_PATH_LENGTH} characters` };
  if (!p.startsWith('/')) return { rule: 'absolute', message: 'must be an absolute path (start with /)' };
  if (p === '/') return { rule: 'forbidden', message: 'must not be / itself' };
  const parts = p.slice(1).split('/');
  if (parts.some((c) => c === '..')) return { rule: 'no-dotdot', message: 'must not contain ".." components' };
  if (parts.some((c) => c === '' || c === '.')) {
    return { rule: 'normalised', message: 'must be normalised: no "//", no "." components, no trailing "/"' };
  }
  const bad = parts.find((c) => !SAFE_COMPONENT.test(c));
  if (bad !== undefined) {
    return {
      rule: 'safe-characters',
      message: 'may only contain letters, digits and . _ @ + = - (other characters cannot be quoted safely in shell, mount options and unit files)',
    };
  }
  return undefined;
}

/** Syntax plus: not /proc, /sys, /dev, /run, /boot or anything below them. */
export function checkNodePath(p: string): PathViolation | undefined {
  const syntax = checkPathSyntax(p);
  if (syntax) return syntax;
  const root = FORBIDDEN_ROOTS.find((r) => isWithin(p, r));
  if (root !== undefined) {
    return { rule: 'forbidden', message: `must not be ${root} or below it (kernel, runtime or boot file system)` };
  }
  return undefined;
}

/** The state directory lives on /run, which is a tmpfs: progress markers vanish at reboot. */
export function checkStateDir(p: string): PathViolation | undefined {
  const syntax = checkPathSyntax(p);
  if (syntax) return syntax;
  if (!isWithin(p, '/run') || p === '/run') {
    return { rule: 'state-dir-under-run', message: 'must be a directory below /run (a tmpfs, cleared at every boot)' };
  }
  return undefined;
}
