// `noderepair-demo --openstack real` against the REAL OpenStack test bed
// (@noderepair/openstack-testbed: Keystone and Nova from Debian's packages). First the two
// ways it refuses to run (not installed, not running), each with the command to run; then the
// whole demo with every node on a real Nova server and noderepair the compiled CLI.
//
// The test bed is installed by the CI setup (scripts/bootstrap.mjs). CI runs the packages'
// suites one after another, so it may or may not be running here: it is started when it is
// not, and stopped at the end only when no test bed service at all ran before (as the test
// bed's own e2e suite does, test/support/global-setup.ts there).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  computeUrl,
  issueToken,
  parseEnvExports,
  runningServices,
  runScript,
} from '@noderepair/openstack-testbed';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_PREFIX } from '../src/cloud/real-cloud.js';
import { testbedStatus } from '../src/cloud/testbed-check.js';
import { runDemo, type Run } from './support/run-demo.js';

const dir = mkdtempSync(join(tmpdir(), 'noderepair-demo-openstack-'));
const report = join(dir, 'report.html');
const SCRIPT = 'bash packages/openstack-testbed/testbed.sh';

let notInstalled: Run;
let notRunning: Run;
let run: Run;
let stopAtEnd = false;

/** The demo's servers the test bed's Nova still lists (none once the demo has exited). */
async function demoServersLeft(): Promise<string[]> {
  const env = parseEnvExports(await runScript(['env'], { progress: () => undefined }));
  const token = await issueToken(
    env['OS_AUTH_URL'] ?? '',
    {
      kind: 'password',
      username: env['OS_USERNAME'] ?? '',
      password: env['OS_PASSWORD'] ?? '',
      project: env['OS_PROJECT_NAME'] ?? '',
    },
    env['OS_REGION_NAME'] ?? '',
  );
  const res = await fetch(`${computeUrl(token)}/servers?name=${SERVER_PREFIX}`, {
    headers: { 'x-auth-token': token.id },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { servers: { name: string }[] };
  return body.servers.map((s) => s.name);
}

beforeAll(async () => {
  // Two state directories the test bed was never installed in / never started from: the demo
  // must stop before starting anything and say what to run.
  const empty = join(dir, 'state-empty');
  mkdirSync(empty);
  notInstalled = await runDemo(['--openstack', 'real'], { NODEREPAIR_OPENSTACK_STATE: empty });
  const idle = join(dir, 'state-idle');
  mkdirSync(idle);
  writeFileSync(join(idle, '.installed'), '');
  notRunning = await runDemo(['--openstack', 'real'], { NODEREPAIR_OPENSTACK_STATE: idle });

  const before = await runningServices({ progress: () => undefined });
  if ((await testbedStatus()).stopped.length > 0) {
    stopAtEnd = before.length === 0;
    // install first, as the test bed's own suite does (startOpenStackTestbed): it is a no-op on
    // an installed test bed, and on a machine whose cached state says "installed" but whose
    // packages or configs are not all there yet it completes them instead of failing start.
    await runScript(['install']);
    await runScript(['start']);
  }
  run = await runDemo(['--openstack', 'real', '--report', report, '--log-dir', join(dir, 'logs')]);
}, 900_000);

afterAll(async () => {
  if (stopAtEnd) await runScript(['stop']);
}, 300_000);

describe('pnpm demo --openstack real', () => {
  it('refuses to run on a test bed that is not installed, naming install and start', () => {
    expect(notInstalled.code).toBe(3);
    expect(notInstalled.stderr).toContain('the OpenStack test bed is not installed');
    expect(notInstalled.stderr).toContain(`${SCRIPT} install && ${SCRIPT} start`);
    expect(notInstalled.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(notInstalled.stdout).not.toContain('starting etcd');
  });

  it('refuses to run on a test bed that is not running, naming the stopped services and start', () => {
    expect(notRunning.code).toBe(3);
    expect(notRunning.stderr).toMatch(
      /not running \(stopped: mariadb, rabbitmq, keystone, .*nova-compute\)/,
    );
    expect(notRunning.stderr).toMatch(
      new RegExp(`\\n {2}${SCRIPT.replace(/\./g, '\\.')} start\\n`),
    );
    expect(notRunning.stdout).not.toContain('starting etcd');
  });

  it('exits 0 with every scenario behaving as expected', () => {
    if (run.code !== 0) console.error(run.stderr);
    expect(run.code).toBe(0);
    const scenarios = run.stdout.match(/^ {2}(PASS|FAIL) {2}.*$/gm) ?? [];
    expect(scenarios).toHaveLength(7);
    expect(scenarios.filter((l) => l.includes('FAIL'))).toEqual([]);
    expect(run.stdout).toMatch(/^repairs per kind: SoftReboot 4, HardReboot 1, Replace 1$/m);
  });

  it("runs noderepair as a user does, on the test bed's clouds.yaml", () => {
    expect(run.stdout).toMatch(
      /^==> running: noderepair run --provider openstack --cloud testbed-appcred --policy /m,
    );
  });

  it("puts every node on a real server and finds every reboot in Nova's own records", () => {
    // One cloud, one controller: every node (and zone-b-07's replacement) on the test bed.
    expect(run.stdout).toMatch(
      /^openstack: REAL test bed Nova for 31 node\(s\): 5 reboot\(s\) accepted, 5 finished "Success" in Nova's own records \(compute_reboot_instance\), 1 server\(s\) deleted$/m,
    );
    expect(run.stdout).not.toContain('FAKE Nova');

    // Each reboot line names Nova's record (its request id) and the step noderepair's Event
    // says that request id was: Nova's record has no SOFT/HARD, noderepair's Event does.
    const reboots = [
      ...run.stdout.matchAll(/^\[ *\d+\.\ds\] (\S+) +nova (SoftReboot|HardReboot): (.*)$/gm),
    ];
    expect(reboots.map(([, node, kind]) => `${node} ${kind}`).sort()).toEqual([
      'zone-a-03 SoftReboot',
      'zone-a-06 SoftReboot',
      'zone-b-02 SoftReboot',
      'zone-b-07 HardReboot',
      'zone-b-07 SoftReboot',
    ]);
    for (const [, , kind, note] of reboots)
      expect(note).toMatch(
        new RegExp(
          `^Nova \\(real, test bed\\) recorded reboot req-[0-9a-f-]{36}: noderepair's ${kind}$`,
        ),
      );
    expect(run.stdout).toMatch(
      /^\[ *\d+\.\ds\] zone-b-07 +machine Replaced: node group stand-in: server [0-9a-f]{8} gone from Nova \(real\), created zone-b-07-r1 in zone-b$/m,
    );
  });

  it("brings a kubelet back only after Nova's own record says its reboot finished", () => {
    const back = [
      ...run.stdout.matchAll(/^\[ *\d+\.\ds\] (\S+) +machine (KubeletBack|StaysDown): (.*)$/gm),
    ].map(([, node, kind, note]) => ({ node, kind, note }));
    expect(
      back
        .filter((b) => b.kind === 'KubeletBack')
        .map((b) => b.node)
        .sort(),
    ).toEqual(['zone-a-03', 'zone-a-06', 'zone-b-02']);
    for (const b of back.filter((x) => x.kind === 'KubeletBack'))
      expect(b.note).toMatch(/^Nova \(real\) finished the reboot \(boot 1\)/);
    // The dead machine: both of its real reboots finished, its kubelet never came back.
    expect(back.filter((b) => b.node === 'zone-b-07').map((b) => b.kind)).toEqual([
      'StaysDown',
      'StaysDown',
    ]);
  });

  it("deletes the demo's servers in the test bed's Nova at exit", async () => {
    // 31 created, 1 deleted by noderepair's Replace.
    expect(run.stdout).toMatch(/deleted the demo's 30 server\(s\) in the test bed's Nova$/m);
    expect(await demoServersLeft()).toEqual([]);
  });

  it('says in the report which Nova served which nodes', () => {
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('REAL test bed Nova for 31 node(s)');
    expect(html).toContain('Every scenario behaved as expected.');
  });
});
