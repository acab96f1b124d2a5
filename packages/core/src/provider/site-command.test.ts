// The Command site step with real programs (/bin/sh scripts in a temporary directory): every
// way a program can end, the environment it gets, and what reaches the message. The wrapped
// provider is a recording fake that must never see a site step.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LadderStep } from '../health/policy.js';
import type { ActionRequest, FenceQuery, MachineProvider, ProviderOutcome } from './port.js';
import { withSiteSteps } from './site-steps.js';

const dir = mkdtempSync(join(tmpdir(), 'site-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const signal = new AbortController().signal;

function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return path;
}

/** FAKE inner provider: records what reaches it (a site step must never). */
class RecordingProviderFake implements MachineProvider {
  readonly name = 'recording-fake';
  readonly actions = new Set(['SoftReboot', 'HardReboot'] as const);
  readonly requests: ActionRequest[] = [];
  readonly fences: FenceQuery[] = [];
  async execute(req: ActionRequest): Promise<ProviderOutcome> {
    this.requests.push(req);
    return { kind: 'Accepted', message: 'fake accepted' };
  }
  async fence(q: FenceQuery) {
    this.fences.push(q);
    return { kind: 'Fenced', how: 'PoweredOff', evidence: 'fake' } as const;
  }
}

/** Whether the process is gone or a zombie within `ms` (a hang guard, not a speed claim). */
async function deadWithin(pid: number, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '')[0];
    } catch {
      return true;
    }
    if (state === 'Z') return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

let seq = 0;
function request(over: Partial<ActionRequest> = {}): ActionRequest {
  seq += 1;
  return {
    node: 'worker-1',
    providerID: 'openstack:///0b9c-1',
    action: 'Command',
    actionId: `rem-${seq}/Command-1`,
    issuedAt: Date.UTC(2026, 11, 5, 12, 0, 0),
    replay: false,
    ...over,
  };
}

function commandStep(command: string[], extra: Partial<LadderStep> = {}): LadderStep[] {
  return [
    { action: 'SoftReboot', timeoutMs: 60_000, attempts: 1 },
    {
      action: 'Command',
      command,
      commandTimeoutMs: 20_000,
      timeoutMs: 60_000,
      attempts: 1,
      ...extra,
    },
  ];
}

describe('Command site step (real programs)', () => {
  it('the program gets a scrubbed environment: PATH, HOME, LANG, LC_*, TZ, NODEREPAIR_* and what the step’s env names; no credentials, no KUBECONFIG', async () => {
    const out = join(dir, 'scrubbed-env');
    const prog = script('dump-env.sh', `env | cut -d= -f1 | sort > ${out}; exit 0`);
    const p = withSiteSteps(
      new RecordingProviderFake(),
      commandStep([prog], { env: ['OS_CLOUD', 'NOT_SET'] }),
      {
        env: {
          PATH: process.env['PATH'],
          HOME: '/home/nonroot',
          LANG: 'C.UTF-8',
          LC_ALL: 'C.UTF-8',
          TZ: 'UTC',
          OS_PASSWORD: 'hunter2-pw',
          OS_CLIENT_CONFIG_FILE: '/etc/openstack/clouds.yaml',
          OS_CLOUD: 'site',
          AWS_SECRET_ACCESS_KEY: 'aws-secret',
          KUBECONFIG: '/etc/kube/admin.conf',
          KUBERNETES_SERVICE_HOST: '10.0.0.1',
          NODEREPAIR_FROM_DEPLOYMENT: 'x',
        },
      },
    );
    const r = await p.execute(request(), { signal });
    expect(r.kind).toBe('Accepted');
    const names = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      // What /bin/sh itself sets (PWD, SHLVL, _) is not ours to judge.
      .filter((n) => !['PWD', 'SHLVL', '_', 'OLDPWD'].includes(n));
    expect(names).toEqual([
      'HOME',
      'LANG',
      'LC_ALL',
      'NODEREPAIR_ACTION',
      'NODEREPAIR_ACTION_ID',
      'NODEREPAIR_ISSUED_AT',
      'NODEREPAIR_NODE',
      'NODEREPAIR_PROVIDER_ID',
      'NODEREPAIR_REPLAY',
      'OS_CLOUD',
      'PATH',
      'TZ',
    ]);
  });

  it('exit 0 is Accepted; the program gets argv as given, the NODEREPAIR_* variables, the controller env and a closed stdin', async () => {
    const out = join(dir, 'env-out');
    const prog = script(
      'ok.sh',
      `{ printf 'args=%s|%s\\n' "$1" "$2"
        env | grep -E '^(NODEREPAIR_|SITE_)' | sort
        if read line; then echo "stdin=open"; else echo "stdin=closed"; fi
      } > ${out}
      exit 0`,
    );
    const inner = new RecordingProviderFake();
    const p = withSiteSteps(
      inner,
      commandStep([prog, 'a b', '$(touch /tmp/x)'], { env: ['SITE_REGION'] }),
      {
        env: { PATH: process.env['PATH'], SITE_REGION: 'eu-1' },
      },
    );
    const req = request();
    const r = await p.execute(req, { signal });
    expect(r).toEqual({ kind: 'Accepted', message: `${prog} exited 0` });
    const got = readFileSync(out, 'utf8');
    expect(got).toContain('args=a b|$(touch /tmp/x)');
    expect(got).toContain('NODEREPAIR_NODE=worker-1');
    expect(got).toContain('NODEREPAIR_PROVIDER_ID=openstack:///0b9c-1');
    expect(got).toContain('NODEREPAIR_ACTION=Command');
    expect(got).toContain(`NODEREPAIR_ACTION_ID=${req.actionId}`);
    expect(got).toContain('NODEREPAIR_REPLAY=0');
    expect(got).toContain('NODEREPAIR_ISSUED_AT=2026-12-05T12:00:00.000Z');
    expect(got).toContain('SITE_REGION=eu-1');
    expect(got).toContain('stdin=closed');
    expect(inner.requests).toEqual([]);
  });

  it('an action id already answered is not run again (exactly once within the process)', async () => {
    const count = join(dir, 'count');
    const prog = script('once.sh', `echo run >> ${count}; exit 0`);
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([prog]));
    const req = request();
    const [a, b] = await Promise.all([p.execute(req, { signal }), p.execute(req, { signal })]);
    const c = await p.execute({ ...req, replay: true }, { signal });
    expect([a.kind, b.kind, c.kind]).toEqual(['Accepted', 'Accepted', 'Accepted']);
    expect(readFileSync(count, 'utf8').trim().split('\n')).toEqual(['run']);
  });

  it('exit 75 (EX_TEMPFAIL) is Unavailable: no attempt used; the re-issue runs it again with NODEREPAIR_REPLAY=1', async () => {
    const seen = join(dir, 'replays');
    const prog = script(
      'tempfail.sh',
      `echo "$NODEREPAIR_REPLAY" >> ${seen}; echo 'quota service busy' >&2; exit 75`,
    );
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([prog]));
    const req = request();
    const first = await p.execute(req, { signal });
    expect(first).toEqual({
      kind: 'Unavailable',
      message: `${prog} exited 75 (EX_TEMPFAIL: try again later): quota service busy`,
      maybeSent: false,
    });
    const again = await p.execute({ ...req, replay: true }, { signal });
    expect(again.kind).toBe('Unavailable');
    expect(readFileSync(seen, 'utf8').trim().split('\n')).toEqual(['0', '1']);
  });

  it('another exit status is Rejected with the status and at most the last 200 characters of stderr, secrets of the env masked', async () => {
    const prog = script(
      'fail.sh',
      `i=0; while [ $i -lt 50 ]; do echo "noise line $i" >&2; i=$((i+1)); done
       echo "login failed with $OS_PASSWORD and $API_TOKEN" >&2
       exit 3`,
    );
    // Passed through on purpose (the step's env), so the program can print them.
    const p = withSiteSteps(
      new RecordingProviderFake(),
      commandStep([prog, 'secret-arg'], { env: ['OS_PASSWORD', 'API_TOKEN'] }),
      { env: { PATH: process.env['PATH'], OS_PASSWORD: 'hunter2-pw', API_TOKEN: 'tok-123456' } },
    );
    const r = await p.execute(request(), { signal });
    expect(r.kind).toBe('Rejected');
    expect(r.message.startsWith(`${prog} exited 3: …`)).toBe(true);
    expect(r.message).toMatch(/login failed with \*\*\* and \*\*\*$/);
    expect(r.message).not.toContain('hunter2-pw');
    expect(r.message).not.toContain('tok-123456');
    expect(r.message).not.toContain('secret-arg');
    expect(r.message).not.toContain('noise line 0 ');
    const excerpt = r.message.slice(`${prog} exited 3: `.length);
    expect(excerpt.length).toBeLessThanOrEqual(201);
  });

  it('a program that cannot be started is Rejected with the system error code', async () => {
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([join(dir, 'missing')]));
    expect(await p.execute(request(), { signal })).toEqual({
      kind: 'Rejected',
      message: `cannot start ${join(dir, 'missing')}: ENOENT`,
    });
    const notExec = join(dir, 'not-exec.sh');
    writeFileSync(notExec, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const q = withSiteSteps(new RecordingProviderFake(), commandStep([notExec]));
    expect(await q.execute(request(), { signal })).toEqual({
      kind: 'Rejected',
      message: `cannot start ${notExec}: EACCES`,
    });
  });

  it('killed by a signal is Rejected naming the signal', async () => {
    const p = withSiteSteps(
      new RecordingProviderFake(),
      commandStep([script('segv.sh', 'kill -SEGV $$')]),
    );
    const r = await p.execute(request(), { signal });
    expect(r).toMatchObject({ kind: 'Rejected' });
    expect(r.message).toMatch(/was killed by SIGSEGV$/);
  });

  it('past commandTimeout: SIGTERM to the whole process group, SIGKILL after the grace for what ignores it; Rejected', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const prog = script(
      'hang.sh',
      `trap '' TERM
       sleep 300 & echo $! > ${pidFile}
       echo 'waiting for the cloud' >&2
       while :; do sleep 1; done`,
    );
    const p = withSiteSteps(
      new RecordingProviderFake(),
      commandStep([prog], { commandTimeoutMs: 1000 }),
      { killGraceMs: 500 },
    );
    const r = await p.execute(request(), { signal });
    expect(r).toEqual({
      kind: 'Rejected',
      message: `${prog} did not finish within 1s: stopped with SIGTERM, then SIGKILL: waiting for the cloud`,
    });
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    // The background sleep was in the program's process group: it is dead too (gone, or a
    // zombie until whoever inherited it reaps it).
    expect(await deadWithin(grandchild, 5000)).toBe(true);
  });

  it('a program that exits on SIGTERM at the timeout needs no SIGKILL', async () => {
    const prog = script('slow.sh', 'sleep 300');
    const p = withSiteSteps(
      new RecordingProviderFake(),
      commandStep([prog], { commandTimeoutMs: 500 }),
      { killGraceMs: 60_000 },
    );
    expect(await p.execute(request(), { signal })).toEqual({
      kind: 'Rejected',
      message: `${prog} did not finish within 500ms: stopped with SIGTERM`,
    });
  });

  it('the controller stopping stops the program: Unavailable, maybe sent (the next leader replays)', async () => {
    const started = join(dir, 'started');
    const prog = script('long.sh', `touch ${started}; sleep 300`);
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([prog]), { killGraceMs: 500 });
    const ac = new AbortController();
    const pending = p.execute(request(), { signal: ac.signal });
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
    ac.abort();
    const r = await pending;
    expect(r).toMatchObject({ kind: 'Unavailable', maybeSent: true });
    expect(r.message).toBe(
      `${prog} stopped because the controller is stopping (its process group killed with SIGKILL)`,
    );
  });

  it('a lost lease (abort) kills a program that ignores SIGTERM, and what it started, at once: dead when execute() resolves, not after the grace', async () => {
    const started = join(dir, 'stubborn.started');
    const pidFile = join(dir, 'stubborn.pids');
    const prog = script(
      'stubborn.sh',
      `trap '' TERM
       sleep 300 & echo "$$ $!" > ${pidFile}
       touch ${started}
       while :; do sleep 1; done`,
    );
    // A grace longer than the test may run (and than any lease margin): a stop that waited
    // for it would never resolve here.
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([prog]), {
      killGraceMs: 600_000,
    });
    const ac = new AbortController();
    const pending = p.execute(request(), { signal: ac.signal });
    while (!existsSync(started)) await new Promise((r) => setTimeout(r, 20));
    const [script_, grandchild] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    ac.abort();
    const r = await pending;
    // The program itself was reaped before execute() resolved: no /proc entry left.
    expect(existsSync(`/proc/${script_}`)).toBe(false);
    expect(r).toEqual({
      kind: 'Unavailable',
      message: `${prog} stopped because the controller is stopping (its process group killed with SIGKILL)`,
      maybeSent: true,
    });
    // Its background sleep got the same SIGKILL (gone, or a zombie until it is reaped).
    expect(await deadWithin(grandchild as number, 5000)).toBe(true);
  });

  it('endless output stays bounded and the message short', async () => {
    const prog = script(
      'loud.sh',
      `yes 'x' | head -c 3000000 >&2; yes 'y' | head -c 3000000; exit 9`,
    );
    const p = withSiteSteps(new RecordingProviderFake(), commandStep([prog]));
    const r = await p.execute(request(), { signal });
    expect(r.kind).toBe('Rejected');
    expect(r.message.length).toBeLessThan(prog.length + 220);
    expect(r.message).toMatch(/exited 9: …x( x)+$/);
  });

  it('other actions and their fence go to the wrapped provider; a site step never fences', async () => {
    const inner = new RecordingProviderFake();
    const p = withSiteSteps(inner, commandStep(['/bin/true']));
    expect([...p.actions].sort()).toEqual(['Command', 'HardReboot', 'SoftReboot']);
    expect(p.name).toBe('recording-fake');
    const soft = request({ action: 'SoftReboot' });
    expect(await p.execute(soft, { signal })).toEqual({
      kind: 'Accepted',
      message: 'fake accepted',
    });
    expect(inner.requests).toEqual([soft]);
    const q = { node: 'worker-1', providerID: 'x', actionId: 'a', issuedAt: 0 };
    expect(await p.fence({ ...q, action: 'Command' }, { signal })).toEqual({
      kind: 'NotFenced',
      reason: 'a site command cannot prove the machine is off',
    });
    expect(await p.fence({ ...q, action: 'Webhook' }, { signal })).toMatchObject({
      kind: 'NotFenced',
    });
    expect(await p.fence({ ...q, action: 'HardReboot' }, { signal })).toMatchObject({
      kind: 'Fenced',
    });
    expect(inner.fences.map((f) => f.action)).toEqual(['HardReboot']);
    // A site action the ladder does not have is refused, not handed on.
    expect(await p.execute(request({ action: 'Webhook' }), { signal })).toEqual({
      kind: 'Rejected',
      message: 'the ladder has no Webhook step',
    });
  });

  it('a ladder without site steps leaves the provider as it is', () => {
    const inner = new RecordingProviderFake();
    expect(withSiteSteps(inner, [{ action: 'HardReboot', timeoutMs: 1, attempts: 1 }])).toBe(inner);
  });
});
