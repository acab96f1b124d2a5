// A client of QEMU's machine protocol (QMP) over its unix socket: one JSON object per line,
// a greeting, `qmp_capabilities` to leave negotiation mode, then commands answered in order
// (matched here by `id`) and asynchronous events (RESET, STOP, SHUTDOWN, ...) in between.
// Used only by the test hypervisor: it is how "the hypervisor" acts on and watches a real VM.
import { connect, type Socket } from 'node:net';

/** An asynchronous QMP event, with qemu's own timestamp in epoch milliseconds. */
export interface QmpEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
  readonly at: number;
}

/** qemu answered a command with an error (the command reached it and was refused). */
export class QmpCommandError extends Error {
  constructor(
    readonly command: string,
    readonly qmpClass: string,
    desc: string,
  ) {
    super(`QMP ${command}: ${qmpClass}: ${desc}`);
    this.name = 'QmpCommandError';
  }
}

interface Pending {
  readonly command: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

/** One QMP connection; events go to `onEvent`, in the order qemu sent them. */
export class QmpClient {
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: Error | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly onEvent: (e: QmpEvent) => void,
  ) {
    socket.on('data', (d: Buffer) => this.read(d.toString('utf8')));
    socket.on('close', () => this.fail(new Error('QMP connection closed')));
    socket.on('error', (e) => this.fail(e));
  }

  /** Connects, waits for the greeting and leaves capabilities negotiation. */
  static async connect(
    path: string,
    onEvent: (e: QmpEvent) => void,
    timeoutMs = 5_000,
  ): Promise<QmpClient> {
    const socket = connect(path);
    const greeted = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`QMP ${path}: no greeting in ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      let head = '';
      const onData = (d: Buffer) => {
        head += d.toString('utf8');
        const nl = head.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        socket.off('data', onData);
        // Anything after the greeting line is for the client proper.
        if (nl + 1 < head.length) socket.unshift(Buffer.from(head.slice(nl + 1)));
        resolve();
      };
      socket.on('data', onData);
    });
    try {
      await greeted;
    } catch (e) {
      socket.destroy();
      throw e;
    }
    const client = new QmpClient(socket, onEvent);
    await client.execute('qmp_capabilities');
    return client;
  }

  /** Runs a command; rejects with QmpCommandError when qemu refuses it, Error when the link fails. */
  execute<T = unknown>(command: string, args?: Record<string, unknown>): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { command, resolve: resolve as (v: unknown) => void, reject });
      this.socket.write(
        `${JSON.stringify({ execute: command, ...(args ? { arguments: args } : {}), id })}\n`,
      );
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line !== '') this.dispatch(JSON.parse(line) as Record<string, unknown>);
    }
  }

  private dispatch(msg: Record<string, unknown>): void {
    if (typeof msg['event'] === 'string') {
      const ts = msg['timestamp'] as { seconds: number; microseconds: number } | undefined;
      const at = ts ? ts.seconds * 1000 + Math.floor(ts.microseconds / 1000) : Date.now();
      this.onEvent({
        event: msg['event'],
        data: (msg['data'] as Record<string, unknown>) ?? {},
        at,
      });
      return;
    }
    const id = msg['id'] as number | undefined;
    const p = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || p === undefined) return;
    this.pending.delete(id);
    const err = msg['error'] as { class: string; desc: string } | undefined;
    if (err) p.reject(new QmpCommandError(p.command, err.class, err.desc));
    else p.resolve(msg['return']);
  }

  private fail(e: Error): void {
    this.closedWith ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}
