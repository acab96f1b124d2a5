// A qemu-system-x86_64 guest (TCG: no KVM here) and a client for its test agent. The host
// talks to the guest only through a virtio-serial port (a unix socket on this side), never
// through a network. The serial console goes to a log file for post-mortems.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AGENT_PORT } from './guest-files.js';
import type { VmImage } from './image.js';

export interface ExecResult {
  readonly rc: number;
  readonly out: string;
}

export interface VmOptions {
  /** Guest memory in MiB; default 1024. A Kubernetes node needs more than the overlay test. */
  readonly memoryMiB?: number;
  /**
   * Appended to qemu's arguments, after the defaults, e.g. a network for a node that must reach
   * an API server (`-nic user,...`: qemu adds it despite the default `-nic none`) or a QMP
   * socket for the test hypervisor (`-qmp unix:...,server=on,wait=off`).
   */
  readonly qemuArgs?: readonly string[];
  /** Appended to the kernel command line. */
  readonly kernelArgs?: readonly string[];
}

export class Vm {
  private readonly dir = mkdtempSync(join(tmpdir(), 'noderepair-vm-'));
  private readonly socketPath = join(this.dir, 'agent.sock');
  readonly consoleLog = join(this.dir, 'console.log');
  private proc: ChildProcess | undefined;
  private socket: Socket | undefined;
  private buffer = '';
  private lines: string[] = [];
  private waiters: (() => void)[] = [];
  private exited = false;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly image: VmImage,
    private readonly opts: VmOptions = {},
  ) {}

  async start(): Promise<void> {
    this.proc = spawn(
      'qemu-system-x86_64',
      // prettier-ignore
      [
        '-accel', 'tcg',
        '-m', String(this.opts.memoryMiB ?? 1024),
        // One vCPU: on a loaded host a second TCG vCPU thread mostly waits for the first (IPIs, RCU).
        '-smp', '1',
        '-nodefaults', '-no-user-config', '-display', 'none',
        '-kernel', this.image.kernel,
        '-initrd', this.image.initrd,
        '-append', [
          'root=/dev/vda rw console=ttyS0 panic=-1 loglevel=4 systemd.show_status=true',
          // TCG on a busy host: vCPUs stall for seconds; do not turn that into panics or noise.
          'nowatchdog rcupdate.rcu_cpu_stall_suppress=1 tsc=reliable',
          // Every fork and exec of the boot goes to the trace buffer (overlayfs-gen's VM test
          // counts the processes its overlay unit starts from it). Two events per process: no
          // measurable cost.
          'trace_event=sched:sched_process_fork,sched:sched_process_exec',
          ...(this.opts.kernelArgs ?? []),
        ].join(' '),
        // snapshot=on: writes go to a temporary overlay that lives as long as this qemu
        // process (so they survive guest reboots) and the cached image stays pristine.
        '-drive', `file=${this.image.disk},format=raw,if=virtio,snapshot=on`,
        '-serial', `file:${this.consoleLog}`,
        '-device', 'virtio-serial-pci',
        '-chardev', `socket,id=agent,path=${this.socketPath},server=on,wait=off`,
        '-device', `virtserialport,chardev=agent,name=${AGENT_PORT}`,
        '-nic', 'none',
        ...(this.opts.qemuArgs ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    this.proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    this.proc.on('exit', () => {
      this.exited = true;
      this.wake();
    });
    for (let i = 0; !existsSync(this.socketPath); i++) {
      if (this.exited || i > 200) throw new Error(`qemu did not start: ${stderr}`);
      await sleep(100);
    }
    this.socket = connect(this.socketPath);
    await new Promise<void>((resolve, reject) => {
      this.socket?.once('connect', resolve);
      this.socket?.once('error', reject);
    });
    this.socket.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, nl).replace(/\r$/, ''));
        this.buffer = this.buffer.slice(nl + 1);
      }
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Wait for (and consume) the first line matching `pattern`; earlier lines are dropped. */
  private async nextLine(
    pattern: RegExp,
    timeoutMs: number,
    what: string,
  ): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.lines.length > 0) {
        const line = this.lines.shift() ?? '';
        const m = pattern.exec(line);
        if (m) return m;
      }
      if (this.exited)
        throw new Error(`qemu exited while waiting for ${what}\n${this.consoleTail()}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${what}\n${this.consoleTail()}`,
        );
      await Promise.race([
        new Promise<void>((r) => this.waiters.push(r)),
        sleep(Math.min(left, 1000)),
      ]);
    }
  }

  consoleTail(): string {
    try {
      return `--- console (last 4000 chars) ---\n${readFileSync(this.consoleLog, 'utf8').slice(-4000)}`;
    } catch {
      return '(no console log)';
    }
  }

  /** Wait until the agent announces a boot whose id differs from `previousBootId`. */
  async waitForBoot(previousBootId: string | undefined, timeoutMs: number): Promise<string> {
    for (;;) {
      const m = await this.nextLine(/^READY (\S+)$/, timeoutMs, 'the guest agent (boot)');
      if (m[1] !== previousBootId) return m[1] ?? '';
    }
  }

  /** Run a shell command in the guest as root. Calls are serialised. */
  exec(command: string, timeoutMs = 120_000): Promise<ExecResult> {
    const run = async (): Promise<ExecResult> => {
      this.lines = [];
      this.socket?.write(`${Buffer.from(command, 'utf8').toString('base64')}\n`);
      const m = await this.nextLine(
        /^RESULT (\d+) ?(\S*)$/,
        timeoutMs,
        `command: ${command.slice(0, 200)}`,
      );
      return { rc: Number(m[1]), out: Buffer.from(m[2] ?? '', 'base64').toString('utf8') };
    };
    const p = this.busy.then(run, run);
    this.busy = p.catch(() => undefined);
    return p;
  }

  /** Like exec, but a non-zero exit status is an error that shows the output. */
  async ok(command: string, timeoutMs?: number): Promise<string> {
    const r = await this.exec(command, timeoutMs);
    if (r.rc !== 0) throw new Error(`guest command failed (rc ${r.rc}): ${command}\n${r.out}`);
    return r.out;
  }

  /** Reboot and wait for the agent of the new boot. Returns the new boot id. */
  async reboot(bootId: string, timeoutMs: number): Promise<string> {
    this.lines = [];
    this.socket?.write(`${Buffer.from('sync; systemctl reboot', 'utf8').toString('base64')}\n`);
    return this.waitForBoot(bootId, timeoutMs);
  }

  /**
   * Resolves once qemu has exited, as it does when the guest powers itself off (no
   * -no-shutdown): e.g. after a `systemctl poweroff` in the guest.
   */
  async waitForExit(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.exited) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`qemu still running after ${timeoutMs} ms\n${this.consoleTail()}`);
      await Promise.race([
        new Promise<void>((r) => this.waiters.push(r)),
        sleep(Math.min(left, 1000)),
      ]);
    }
  }

  async stop(): Promise<void> {
    // Keep the last console log for a post-mortem (outside the repository).
    try {
      copyFileSync(this.consoleLog, join(tmpdir(), 'noderepair-vm-console.log'));
    } catch {
      // no console log: qemu never started
    }
    this.socket?.destroy();
    if (this.proc && !this.exited) {
      this.proc.kill('SIGTERM');
      for (let i = 0; i < 50 && !this.exited; i++) await sleep(100);
      if (!this.exited) this.proc.kill('SIGKILL');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
