// The boot script: tmpfs overlays over the volatile directories, persistent paths bound back
// to the disk, the tmpfs hidden. Sequence and why:
//  1. mount one size-limited tmpfs for all upper/work dirs (private, mode 0700), and bind each
//     volatile directory that holds a persistent path to a staging point on it (private, so the
//     overlay about to cover the directory does not propagate there), BEFORE the overlay covers
//     it: afterwards the disk's copy of the path is unreachable;
//  2. mount an overlay per volatile directory, each with its own upper/work pair (a pair
//     cannot be shared: EBUSY), with index/metacopy/redirect_dir off (the lower layer is the
//     live directory, so the features that assume an unchanging lower must stay off), then
//     bind the persistent paths from the staging points back over their place in the overlays;
//  3. lazily unmount the tmpfs so nobody can reach the upper dirs or the staged directories any
//     more. The overlays and binds keep their references. Never `rm -rf` an upper dir: on 6.x
//     kernels that breaks the overlay (empty listings, ENOENT on create).
// Every process start costs hundreds of ms on an emulated CPU and still counts on a real one
// this early in boot, so the mounts of a step are batched: the script writes them as fstab
// lines (shell builtins) and one `mount -a -T` mounts them in order. 5 commands in all
// (mount, tar, tar, mount, umount) whatever the number of directories and paths.
// An overlay's root directory takes its mode and owner from its upper directory, so each
// upper directory is a copy of the directory it covers (the directory itself, not its
// contents), never a plain mkdir: that would open a 0700 /root to every user. One tar pair
// makes every upper AND work directory: the archive also holds one empty directory per
// overlay from the state dir (the unit's RuntimeDirectory= creates them without a process),
// and extracting it below the tmpfs mirrors both at their absolute paths under "layers".
// Steps, not single mounts, are the unit of failure: a failed step stops the script before
// the next, so nothing is ever bound back from a staging point whose staging failed.
// Every step leaves a marker in the state dir (on /run, so a new boot starts clean): a second
// run in the same boot is a no-op, and a run after a partial failure resumes.
import type { OverlayConfig } from '../config/index.js';
import { isWithin } from '../config/index.js';
import { GENERATED_BY, DISABLE_CMDLINE } from './layout.js';
import { shQuote } from './shell.js';

/** Persistent paths that need binding back: those inside some volatile directory. */
export function boundPaths(config: OverlayConfig): string[] {
  return config.persistent.filter((p) => config.volatile.some((v) => isWithin(p, v)));
}

/** A bound path, the index of the volatile directory holding it, and its path below that. */
interface Bound {
  readonly path: string;
  readonly root: number;
  readonly rel: string;
}

function boundWithRoots(config: OverlayConfig): Bound[] {
  // Volatile directories never nest (validation), so exactly one holds each bound path.
  return boundPaths(config).map((path) => {
    const root = config.volatile.findIndex((v) => isWithin(path, v));
    const dir = config.volatile[root] ?? '/';
    return { path, root, rel: dir === '/' ? path : path.slice(dir.length) };
  });
}

const HEADER = [
  '#!/bin/sh',
  `# ${GENERATED_BY}`,
  '# Overlays volatile directories with tmpfs (changes vanish at reboot) and binds persistent',
  '# paths back to the disk. Idempotent: a second run in the same boot does nothing.',
  `# Boot with ${DISABLE_CMDLINE} on the kernel command line to skip it.`,
  'set -eu',
  '',
];

const FUNCTIONS = [
  '# Under systemd, stderr is the journal (SyslogIdentifier=$TAG in the unit); by hand, syslog',
  '# (the journal too) and the terminal. Builtins only under systemd: every exec is expensive',
  '# this early in boot, and even more so on an emulated CPU.',
  'log() {',
  '  if [ -z "${INVOCATION_ID:-}" ]; then logger -t "$TAG" -p daemon.info -- "$*" 2>/dev/null || true; fi',
  '  printf \'%s: %s\\n\' "$TAG" "$*" >&2',
  '}',
  'die() {',
  '  log "error: $*"',
  '  exit 1',
  '}',
  'done_step() { [ -e "$STATE_DIR/done-$1" ]; }',
  'mark() { : > "$STATE_DIR/done-$1"; }',
  '# A batch of mounts: add() writes one fstab line (printf is a builtin), mount_batch mounts',
  '# every line, in order, with ONE mount(8). Paths are validated to [A-Za-z0-9._@+=-/], so no',
  '# fstab escaping is needed.',
  'start_batch() { : > "$FSTAB"; BATCH=; }',
  'add() {',
  '  printf \'%s %s %s %s 0 0\\n\' "$1" "$2" "$3" "$4" >> "$FSTAB"',
  '  BATCH=1',
  '}',
  'mount_batch() {',
  '  if [ -n "$BATCH" ]; then mount -a -T "$FSTAB" || die "$1"; fi',
  '}',
  '',
];

/**
 * The overlay boot script (POSIX sh): a tmpfs for the upper layers, an overlay per volatile
 * directory, persistent paths bound back to the disk, the tmpfs then hidden. Idempotent within a
 * boot: progress markers in the state dir let a second run do nothing and a failed run resume.
 */
export function bootScript(config: OverlayConfig): string {
  const bound = boundWithRoots(config);
  const alreadyPersistent = config.persistent.filter((p) => !bound.some((b) => b.path === p));
  const lines: string[] = [...HEADER];
  const emit = (...ls: string[]) => lines.push(...ls);

  emit(
    'TAG=noderepair-overlay',
    `STATE_DIR=${shQuote(config.stateDir)}`,
    `TMPFS_SIZE=${shQuote(config.tmpfsSize)}`,
    'UPPER_FS="$STATE_DIR/tmpfs"',
    '# Upper and work directories, each at its absolute path below this (see step 2).',
    'LAYERS="$UPPER_FS/layers"',
    'FSTAB="$STATE_DIR/fstab"',
    '',
    ...FUNCTIONS,
    'for tool in mkdir mount tar umount; do',
    '  command -v "$tool" >/dev/null 2>&1 || die "required tool $tool not found"',
    'done',
    'if [ -e "$STATE_DIR/applied" ]; then',
    '  log "overlays already applied in this boot; nothing to do"',
    '  exit 0',
    'fi',
    '# Under systemd the unit creates the state dir, mode 0700 (RuntimeDirectory=): no exec.',
    'if [ ! -d "$STATE_DIR" ]; then',
    '  (umask 077 && mkdir -p "$STATE_DIR")',
    'elif [ -z "${INVOCATION_ID:-}" ]; then',
    '  chmod 0700 "$STATE_DIR"',
    'fi',
    '',
    '# One pass over /proc/self/mountinfo, with builtins: which directories carry one of our',
    '# overlays (source "noderepair-overlay", so a root file system that is itself an overlay, as',
    '# in containers, is never mistaken for one of ours), whether the tmpfs is mounted, and',
    '# whether anything is mounted below its mount point. Every run reads it, the first of a',
    '# boot too: a rerun in the same boot with another stateDir finds no marker of the first,',
    '# and only this pass keeps it from stacking overlays on the ones already there.',
    "OURS=' ' TMPFS_UP='' BELOW=''",
    'while read -r _ _ _ _ mp rest; do',
    '  case " $rest " in *" - overlay noderepair-overlay "*) OURS="$OURS$mp " ;; esac',
    '  case "$mp" in "$UPPER_FS") TMPFS_UP=1 ;; "$UPPER_FS"/*) BELOW=1 ;; esac',
    'done < /proc/self/mountinfo',
    'overlaid() {',
    '  case "$OURS" in *" $1 "*) return 0 ;; esac',
    '  return 1',
    '}',
    '',
    '# 1. The tmpfs for every upper and work directory, and a handle on each volatile directory',
    '#    that holds a persistent path, before an overlay covers it.',
    '# keep ID PATH: PATH can be kept persistent (exists, not a symlink); decided once per boot.',
    'keep() {',
    '  done_step "skip-$1" && return 1',
    '  if [ -L "$2" ] || [ ! -e "$2" ]; then',
    '    log "persistent path $2 does not exist or is a symlink; not kept (writes to it will be volatile)"',
    '    mark "skip-$1"',
    '    return 1',
    '  fi',
    '}',
    'if ! done_step staged; then',
    '  start_batch',
    '  NEW_TMPFS=',
    '  if [ -z "$TMPFS_UP" ]; then',
    '    # A batch goes on after a failed mount: an earlier run whose tmpfs failed may have staged',
    '    # onto the state dir. A new tmpfs would cover that, and its lazy unmount uncover it.',
    '    [ -z "$BELOW" ] || die "mounts below $UPPER_FS but no tmpfs there: unmount them (umount -R $UPPER_FS) and rerun"',
    '    NEW_TMPFS=1',
    '    # Private: nothing mounted below it propagates elsewhere, and its unmount stays local.',
    '    add noderepair-overlay "$UPPER_FS" tmpfs "mode=0700,size=$TMPFS_SIZE,private,X-mount.mkdir"',
    '  fi',
  );
  if (bound.length === 0) emit('  # (no persistent path lies inside a volatile directory)');
  config.volatile.forEach((v, i) => {
    const mine = bound.map((b, j) => ({ ...b, id: `p${j}` })).filter((b) => b.root === i);
    if (mine.length === 0) return;
    emit('  need=');
    for (const b of mine) emit(`  if keep ${b.id} ${shQuote(b.path)}; then need=1; fi`);
    // rprivate: the overlay mounted on the directory next must not propagate into the staged copy.
    emit(`  if [ -n "$need" ]; then add ${shQuote(v)} "$UPPER_FS/lower/v${i}" none rbind,rprivate,X-mount.mkdir; fi`);
  });
  if (alreadyPersistent.length > 0) {
    emit(`  # Outside every volatile directory, so already persistent: ${alreadyPersistent.join(' ')}`);
  }
  emit(
    '  mount_batch "mounting the tmpfs or staging the persistent paths failed; nothing is overlaid"',
    '  TMPFS_UP=1',
    '  mark staged',
    '  if [ -n "$NEW_TMPFS" ]; then log "mounted tmpfs ($TMPFS_SIZE) for the upper layers"; fi',
    'fi',
    '',
    '# 2. An overlay per volatile directory, each with its own upper/work pair, then the',
    '#    persistent paths bound back over the overlays: writes to them reach the disk.',
    'overlay() {',
    '  if overlaid "$2"; then',
    '    log "$2 is already overlaid"',
    '    return 0',
    '  fi',
    '  if [ ! -d "$2" ] || [ -L "$2" ]; then',
    '    log "volatile directory $2 does not exist or is a symlink; skipped"',
    '    return 0',
    '  fi',
    '  add noderepair-overlay "$2" overlay \\',
    '    "lowerdir=$2,upperdir=$LAYERS$2,workdir=$LAYERS$STATE_DIR/work/$1,index=off,metacopy=off,redirect_dir=off"',
    '  OVERLAYS="$OVERLAYS $2" DIRS="$DIRS ${2#/} ${STATE_DIR#/}/work/$1"',
    '  # The unit made the work directory\'s source (RuntimeDirectory=); by hand, mkdir makes it.',
    '  [ -d "$STATE_DIR/work/$1" ] || MISSING="$MISSING $STATE_DIR/work/$1"',
    '}',
    '# bind_back ID PATH STAGED',
    'bind_back() {',
    '  if done_step "bind-$1" || done_step "skip-$1"; then return 0; fi',
    '  add "$3" "$2" none rbind',
    '  BINDS="$BINDS $1" KEPT="$KEPT $2"',
    '}',
    "start_batch",
    "OVERLAYS='' DIRS='' MISSING='' BINDS='' KEPT=''",
  );
  config.volatile.forEach((v, i) => emit(`overlay v${i} ${shQuote(v)}`));
  emit(
    '# Every upper directory a copy of the directory it covers (mode, owner, group: the overlay',
    '# root shows them) and every work directory a copy of an empty one in the state dir, made',
    '# by one tar pair that copies the directories, not their contents.',
    'if [ -n "$BATCH" ]; then',
    '  # Never on the /run tmpfs: only on ours, size-limited and hidden afterwards.',
    '  [ -n "$TMPFS_UP" ] || die "the tmpfs $UPPER_FS is not mounted; not overlaying"',
    '  if [ -n "$MISSING" ]; then',
    '    # shellcheck disable=SC2086 # MISSING is a list of validated paths, split on purpose',
    '    (umask 077 && mkdir -p $MISSING)',
    '  fi',
    '  # shellcheck disable=SC2086 # DIRS is a list of validated paths, split on purpose',
    '  tar -C / --no-recursion --numeric-owner --transform \'s,^,layers/,\' -cf "$STATE_DIR/layers.tar" $DIRS ||',
    '    die "copying the attributes of the volatile directories failed; not overlaying"',
    '  tar -C "$UPPER_FS" --numeric-owner -xpf "$STATE_DIR/layers.tar" ||',
    '    die "making the upper and work directories failed; not overlaying"',
    'fi',
  );
  bound.forEach((b, j) => emit(`bind_back p${j} ${shQuote(b.path)} "$UPPER_FS/lower/v${b.root}"${shQuote(b.rel)}`));
  emit(
    '# A failed overlay or bind stops the script here (the unit fails); a rerun mounts what is',
    '# missing: overlays by the mountinfo check, binds by marker (mount -a skips what it finds',
    '# mounted already).',
    'mount_batch "mounting the overlays or binding the persistent paths back failed"',
    'for d in $OVERLAYS; do log "overlaid $d with tmpfs"; done',
    'for id in $BINDS; do mark "bind-$id"; done',
    'for p in $KEPT; do log "kept $p persistent"; done',
    '',
    '# 3. Hide the upper layers. A lazy unmount detaches the tmpfs from the tree while the',
    '#    overlays keep using it. Never rm -rf an upper dir: that breaks the overlay.',
    'if [ -n "$TMPFS_UP" ]; then',
    '  umount -l "$UPPER_FS"',
    'fi',
    ': > "$STATE_DIR/applied"',
    'log "volatile directories overlaid with tmpfs; changes to them vanish at reboot"',
    '',
  );
  return lines.join('\n');
}
