// Typed errors of the OpenStack client. The controller branches on `code` (or instanceof):
// ServerNotFound escalates (the server is gone: hand the Machine to Cluster API), Conflict
// means "Nova is busy with this server, try later", the others are configuration or outage
// problems. Messages name what failed and never carry a secret: every text that came from a
// server is passed through redact() before it gets here.

export type OpenStackErrorCode =
  | 'ConfigError'
  | 'AuthFailed'
  | 'Unauthorized'
  | 'Forbidden'
  | 'ServerNotFound'
  | 'Conflict'
  | 'BadRequest'
  | 'MicroversionNotSupported'
  | 'ServiceUnavailable'
  | 'Timeout'
  /** The caller's AbortSignal ended the call (lost Lease, shutdown): neither a failure nor an answer. */
  | 'Aborted'
  | 'TransportError'
  | 'InvalidResponse'
  | 'EndpointNotFound';

export class OpenStackError extends Error {
  readonly code: OpenStackErrorCode;
  /** HTTP status when the error came from a response. */
  readonly status: number | undefined;

  /**
   * True when the request provably never reached the service (connection refused, name not
   * resolved, TLS handshake refused): safe to send again, even a server action.
   */
  readonly notSent: boolean;
  /**
   * True when a call that must not run twice went out and no usable answer came back: the
   * service may have acted. Set only by the session's no-resend path (server actions).
   */
  readonly maybeSent: boolean;

  constructor(
    code: OpenStackErrorCode,
    message: string,
    status?: number,
    opts: { notSent?: boolean; maybeSent?: boolean } = {},
  ) {
    super(message);
    this.name = code;
    this.code = code;
    this.status = status;
    this.notSent = opts.notSent === true;
    this.maybeSent = opts.maybeSent === true;
  }

  toJSON(): { code: OpenStackErrorCode; status: number | undefined; message: string } {
    return { code: this.code, status: this.status, message: this.message };
  }
}

/** Nova answered 404 for the server: it was deleted, or never existed in this project/region. */
export class ServerNotFound extends OpenStackError {
  readonly serverId: string;
  constructor(serverId: string, detail?: string) {
    super('ServerNotFound', `server ${serverId} not found${detail ? `: ${detail}` : ''}`, 404);
    this.serverId = serverId;
  }
}

/** Nova answered 409 (task in progress, wrong vm_state, locked) and retries were exhausted. */
export class ServerConflict extends OpenStackError {
  readonly serverId: string;
  constructor(serverId: string, action: string, detail: string) {
    super('Conflict', `${action} on server ${serverId} conflicts with its state: ${detail}`, 409);
    this.serverId = serverId;
  }
}

export function isOpenStackError(e: unknown): e is OpenStackError {
  return e instanceof OpenStackError;
}

/**
 * A server action whose request may have reached Nova but whose answer was lost: a timeout
 * after sending, a reset connection, or a 5xx (a proxy's 502/504 after forwarding). It was
 * NOT sent again; whether Nova acted is for Nova's own records (os-instance-actions) to say.
 */
export class ActionMaybeSent extends OpenStackError {
  readonly serverId: string;
  readonly action: string;
  constructor(serverId: string, action: string, cause: OpenStackError) {
    super(
      cause.code,
      `${action} of server ${serverId}: no answer (${cause.message}); not sent again, Nova may have acted`,
      cause.status,
      { maybeSent: true },
    );
    this.serverId = serverId;
    this.action = action;
  }
}
