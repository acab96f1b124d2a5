// The generated boot script, run for real as root in a private mount namespace against a
// scratch tree: overlays mount, writes land in tmpfs, persistent paths write through, the
// upper layers are hidden, and a second run is a no-op. Needs root and unshare(1).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { either } from 'fp-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeConfig } from '../config/index.js';
import { bootScript } from './boot-script.js';

// Not below /tmp if /tmp is a tmpfs on some machines: the lower layer should be a real disk.
const scratch = mkdtempSync('/var/tmp/ofs-unshare-');
const stateDir = `/run/${scratch.split('/').pop()}-state`;
const S = (p: string) => join(scratch, p);

interface Observed {
  firstRun: string;
  overlaySource: string;
  overlayFs: string;
  upperHidden: boolean;
  usrMode: string;
  volatileReadBack: string;
  persistentReadBack: string;
  machineIdReadBack: string;
  mountsBefore: string;
  mountsAfterSecond: string;
  secondRun: string;
  mountsAfterResume: string;
  resumeRun: string;
}

let observed: Observed;

beforeAll(() => {
  for (const d of ['etc/kubernetes', 'usr/lib', 'var/log']) mkdirSync(S(d), { recursive: true });
  writeFileSync(S('etc/hostname'), 'node-a\n');
  writeFileSync(S('etc/machine-id'), 'id-1\n');
  writeFileSync(S('etc/kubernetes/kubelet.conf'), 'old\n');
  writeFileSync(S('usr/lib/tool'), 'v1\n');
  // Not the 0755 a plain mkdir gives: the overlay root must show the covered directory's mode.
  chmodSync(S('usr'), 0o750);

  const config = decodeConfig({
    volatile: [S('etc'), S('usr')],
    persistent: [S('etc/kubernetes'), S('etc/machine-id'), S('var/log'), S('etc/does-not-exist')],
    tmpfsSize: '16M',
    stateDir,
    healthMonitors: [],
  });
  if (either.isLeft(config)) throw new Error(JSON.stringify(config.left));
  const script = S('overlay-boot.sh');
  writeFileSync(script, bootScript(config.right), { mode: 0o755 });

  // Runs inside the namespace; prints one JSON object of what it saw.
  const driver = `
set -eu
q() { printf '%s' "$1" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g' | tr '\\n' '|'; }
first=$(sh '${script}' 2>&1)
src=$(findmnt -rn -o SOURCE -M '${S('etc')}')
fs=$(findmnt -rn -o FSTYPE -M '${S('etc')}')
if mountpoint -q '${stateDir}/tmpfs'; then hidden=false; else hidden=true; fi
umode=$(stat -c %a '${S('usr')}')
echo changed > '${S('etc/hostname')}'
echo new > '${S('etc/new-file')}'
echo v2 > '${S('usr/lib/tool')}'
mkdir '${S('usr/newdir')}'
echo new > '${S('etc/kubernetes/kubelet.conf')}'
echo id-2 > '${S('etc/machine-id')}'
echo evidence > '${S('var/log/syslog')}'
vread=$(cat '${S('etc/new-file')}')
pread=$(cat '${S('etc/kubernetes/kubelet.conf')}')
mread=$(cat '${S('etc/machine-id')}')
before=$(cat /proc/self/mountinfo)
second=$(sh '${script}' 2>&1)
after=$(cat /proc/self/mountinfo)
# A run that lost its "applied" marker (as after a crash in step 5) must not stack mounts.
rm '${stateDir}/applied'
resume=$(sh '${script}' 2>&1)
resumed=$(cat /proc/self/mountinfo)
printf '{"firstRun":"%s","overlaySource":"%s","overlayFs":"%s","upperHidden":%s,"usrMode":"%s","volatileReadBack":"%s","persistentReadBack":"%s","machineIdReadBack":"%s","mountsBefore":"%s","mountsAfterSecond":"%s","secondRun":"%s","mountsAfterResume":"%s","resumeRun":"%s"}\\n' \\
  "$(q "$first")" "$src" "$fs" "$hidden" "$umode" "$vread" "$pread" "$mread" "$(q "$before")" "$(q "$after")" "$(q "$second")" "$(q "$resumed")" "$(q "$resume")"
`;
  const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', driver], { encoding: 'utf8', timeout: 60_000 });
  if (r.error || r.status !== 0) {
    throw new Error(`unshare -m failed (needs root): ${r.error?.message ?? ''} status ${r.status}\n${r.stdout}\n${r.stderr}`);
  }
  observed = JSON.parse(r.stdout.trim()) as Observed;
});

afterAll(() => {
  // The namespace is gone, so nothing is mounted here any more: a plain removal is safe.
  rmSync(scratch, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe('boot script in unshare -m', () => {
  it('mounts our overlay on the volatile directories and logs it', () => {
    expect(observed.overlaySource).toBe('noderepair-overlay');
    expect(observed.overlayFs).toBe('overlay');
    expect(observed.firstRun).toContain(`overlaid ${S('etc')} with tmpfs`);
    expect(observed.firstRun).toContain(`overlaid ${S('usr')} with tmpfs`);
    expect(observed.firstRun).toContain(`kept ${S('etc/kubernetes')} persistent`);
    expect(observed.firstRun).toContain(`persistent path ${S('etc/does-not-exist')} does not exist`);
  });

  it("keeps the covered directory's own mode on the overlay root", () => {
    expect(observed.usrMode).toBe('750');
  });

  it('hides the upper layers, and the overlays keep working afterwards', () => {
    expect(observed.upperHidden).toBe(true);
    // These writes happened after the lazy unmount: the overlay still accepts new files.
    expect(observed.volatileReadBack).toBe('new');
    expect(observed.persistentReadBack).toBe('new');
    expect(observed.machineIdReadBack).toBe('id-2');
  });

  it('a second run in the same boot is a no-op', () => {
    expect(observed.secondRun).toContain('already applied in this boot');
    expect(observed.mountsAfterSecond).toBe(observed.mountsBefore);
  });

  it('a run without the applied marker resumes without stacking mounts', () => {
    expect(observed.resumeRun).toContain(`${S('etc')} is already overlaid`);
    expect(observed.mountsAfterResume).toBe(observed.mountsBefore);
  });

  it('volatile writes landed in tmpfs: the disk is unchanged once the namespace is gone', () => {
    expect(readFileSync(S('etc/hostname'), 'utf8')).toBe('node-a\n');
    expect(existsSync(S('etc/new-file'))).toBe(false);
    expect(readFileSync(S('usr/lib/tool'), 'utf8')).toBe('v1\n');
    expect(existsSync(S('usr/newdir'))).toBe(false);
  });

  it('persistent paths wrote through to the disk', () => {
    expect(readFileSync(S('etc/kubernetes/kubelet.conf'), 'utf8')).toBe('new\n');
    expect(readFileSync(S('etc/machine-id'), 'utf8')).toBe('id-2\n');
    expect(readFileSync(S('var/log/syslog'), 'utf8')).toBe('evidence\n');
  });
});
