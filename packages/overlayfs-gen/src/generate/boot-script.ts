// The boot script: tmpfs overlays over the volatile directories, persistent paths bound back
// to the disk, the tmpfs hidden. Sequence and why:
//  1. mount one size-limited tmpfs for all upper/work dirs (private, mode 0700);
//  2. bind each persistent path that lies inside a volatile directory to a staging point on
//     that tmpfs, BEFORE the overlay covers it (afterwards the real path is unreachable);
//  3. mount an overlay per volatile directory, each with its own upper/work pair (a pair
//     cannot be shared: EBUSY), with index/metacopy/redirect_dir off (the lower layer is the
//     live directory, so the features that assume an unchanging lower must stay off);
//  4. bind the staged persistent paths back over their place inside the overlays;
//  5. lazily unmount the tmpfs so nobody can reach the upper dirs any more. The overlays keep
//     their reference to it. Never `rm -rf` an upper dir: on 6.x kernels that breaks the
//     overlay (empty listings, ENOENT on create).
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

export function bootScript(config: OverlayConfig): string {
  const bound = boundPaths(config);
  const alreadyPersistent = config.persistent.filter((p) => !bound.includes(p));
  const lines: string[] = [];
  const emit = (...ls: string[]) => lines.push(...ls);

  emit(
    '#!/bin/sh',
    `# ${GENERATED_BY}`,
    '# Overlays volatile directories with tmpfs (changes vanish at reboot) and binds persistent',
    '# paths back to the disk. Idempotent: a second run in the same boot does nothing.',
    `# Boot with ${DISABLE_CMDLINE} on the kernel command line to skip it.`,
    'set -eu',
    '',
    'TAG=noderepair-overlay',
    `STATE_DIR=${shQuote(config.stateDir)}`,
    `TMPFS_SIZE=${shQuote(config.tmpfsSize)}`,
    'UPPER_FS="$STATE_DIR/tmpfs"',
    'DONE="$STATE_DIR/done"',
    '',
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
    'done_step() { [ -e "$DONE/$1" ]; }',
    'mark() { : > "$DONE/$1"; }',
    '# mounted DIR [SOURCE]: DIR is a mount point (of a mount from SOURCE), read from',
    '# /proc/self/mountinfo with builtins. Our overlays carry the source "noderepair-overlay", so',
    '# a root file system that is itself an overlay (containers) is never mistaken for one of ours.',
    'mounted() {',
    '  while read -r _ _ _ _ mp rest; do',
    '    [ "$mp" = "$1" ] || continue',
    '    [ -z "${2:-}" ] && return 0',
    '    case " $rest " in *" - overlay $2 "*) return 0 ;; esac',
    '  done < /proc/self/mountinfo',
    '  return 1',
    '}',
    '',
    'for tool in mount umount; do',
    '  command -v "$tool" >/dev/null 2>&1 || die "required tool $tool not found"',
    'done',
    'if [ -e "$STATE_DIR/applied" ]; then',
    '  log "overlays already applied in this boot; nothing to do"',
    '  exit 0',
    'fi',
    'mkdir -p "$DONE"',
    'chmod 0700 "$STATE_DIR"',
    '',
    '# 1. One size-limited tmpfs holds every upper and work directory.',
    'if ! done_step tmpfs; then',
    '  mkdir -p "$UPPER_FS"',
    '  # Private: nothing mounted below it propagates elsewhere, and its unmount stays local.',
    '  mount --make-private -t tmpfs -o "mode=0700,size=$TMPFS_SIZE" noderepair-overlay "$UPPER_FS"',
    '  mkdir -p "$UPPER_FS/persist" "$UPPER_FS/upper" "$UPPER_FS/work"',
    '  mark tmpfs',
    '  log "mounted tmpfs ($TMPFS_SIZE) for the upper layers"',
    'fi',
    '',
    '# 2. Keep a handle on each persistent path before an overlay covers it.',
    'stage() {',
    '  id=$1 path=$2 staged="$UPPER_FS/persist/$1"',
    '  done_step "stage-$id" && return 0',
    '  if [ -L "$path" ] || [ ! -e "$path" ]; then',
    '    log "persistent path $path does not exist or is a symlink; not kept (writes to it will be volatile)"',
    '    mark "skip-$id"',
    '  else',
    '    if [ -d "$path" ]; then mkdir -p "$staged"; else : > "$staged"; fi',
    '    mount --rbind "$path" "$staged"',
    '  fi',
    '  mark "stage-$id"',
    '}',
  );
  if (bound.length === 0) emit('# (no persistent path lies inside a volatile directory)');
  bound.forEach((p, i) => emit(`stage p${i} ${shQuote(p)}`));
  if (alreadyPersistent.length > 0) {
    emit(`# Outside every volatile directory, so already persistent: ${alreadyPersistent.join(' ')}`);
  }
  emit(
    '',
    '# 3. An overlay per volatile directory, each with its own upper/work pair.',
    'overlay() {',
    '  id=$1 dir=$2 upper="$UPPER_FS/upper/$1" work="$UPPER_FS/work/$1"',
    '  if mounted "$dir" noderepair-overlay; then',
    '    log "$dir is already overlaid"',
    '    return 0',
    '  fi',
    '  if [ ! -d "$dir" ] || [ -L "$dir" ]; then',
    '    log "volatile directory $dir does not exist or is a symlink; skipped"',
    '    return 0',
    '  fi',
    '  mkdir -p "$upper" "$work"',
    '  mount -t overlay noderepair-overlay \\',
    '    -o "lowerdir=$dir,upperdir=$upper,workdir=$work,index=off,metacopy=off,redirect_dir=off" "$dir"',
    '  log "overlaid $dir with tmpfs"',
    '}',
  );
  config.volatile.forEach((v, i) => emit(`overlay v${i} ${shQuote(v)}`));
  emit(
    '',
    '# 4. Bind the persistent paths back over the overlays: writes to them reach the disk.',
    'bind_back() {',
    '  id=$1 path=$2 staged="$UPPER_FS/persist/$1"',
    '  if done_step "bind-$id" || done_step "skip-$id"; then return 0; fi',
    '  mount --rbind "$staged" "$path"',
    '  mark "bind-$id"',
    '  log "kept $path persistent"',
    '}',
  );
  bound.forEach((p, i) => emit(`bind_back p${i} ${shQuote(p)}`));
  emit(
    '',
    '# 5. Hide the upper layers. A lazy unmount detaches the tmpfs from the tree while the',
    '#    overlays keep using it. Never rm -rf an upper dir: that breaks the overlay.',
    'if mounted "$UPPER_FS"; then',
    '  umount -l "$UPPER_FS"',
    'fi',
    ': > "$STATE_DIR/applied"',
    'log "volatile directories overlaid with tmpfs; changes to them vanish at reboot"',
    '',
  );
  return lines.join('\n');
}
