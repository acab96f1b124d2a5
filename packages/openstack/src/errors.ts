// Typed errors of the OpenStack client. The controller branches on `code` (or instanceof):
// ServerNotFound escalates (the server is gone: hand the Machine to Cluster API), Conflict
// means "Nova is busy with this server, try later", the others are configuration or outage
// problems. Messages name what failed and never carry a secret: every text that came from a
// server is passed through redact() before it gets here.

/** Machine-readable kind of an OpenStackError; callers branch on it rather than on the message. */
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
  /**
   * The request could not be carried out at the HTTP level (connection reset, DNS, TLS) and no
   * status came back.
   */
  | 'TransportError'
  /** The service answered, but with a body that did not decode as the documented shape. */
  | 'InvalidResponse'
  /**
   * The Keystone catalog offers no usable endpoint for the service, interface and region asked for.
   */
  | 'EndpointNotFound';

/**
 * Every failure of the OpenStack client; the message names what failed and never carries a secret.
 */
export class OpenStackError extends Error {
  /** What kind of failure this is; also the error's `name`. */
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

  /**
   * Builds an error of the given kind; `status` is the HTTP status when one came back, and `opts`
   * marks whether the request surely never went out or may have been acted on.
   */
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

  /** The code, status and message only, so logging an error never serialises a stack or a cause. */
  toJSON(): { code: OpenStackErrorCode; status: number | undefined; message: string } {
    return { code: this.code, status: this.status, message: this.message };
  }
}

/** Nova answered 404 for the server: it was deleted, or never existed in this project/region. */
export class ServerNotFound extends OpenStackError {
  /** The Nova server id that was looked up. */
  readonly serverId: string;
  /** Builds the 404 error for `serverId`; `detail` is Nova's (already redacted) message, if any. */
  constructor(serverId: string, detail?: string) {
    super('ServerNotFound', `server ${serverId} not found${detail ? `: ${detail}` : ''}`, 404);
    this.serverId = serverId;
  }
}

/** Nova answered 409 (task in progress, wrong vm_state, locked) and retries were exhausted. */
export class ServerConflict extends OpenStackError {
  /** The Nova server id the action was aimed at. */
  readonly serverId: string;
  /**
   * Builds the 409 error for `action` on `serverId`; `detail` is Nova's (already redacted) reason.
   */
  constructor(serverId: string, action: string, detail: string) {
    super('Conflict', `${action} on server ${serverId} conflicts with its state: ${detail}`, 409);
    this.serverId = serverId;
  }
}

/** Type guard: true when `e` is an OpenStackError (or one of its subclasses). */
export function isOpenStackError(e: unknown): e is OpenStackError {
  return e instanceof OpenStackError;
}

/**
 * A server action whose request may have reached Nova but whose answer was lost: a timeout
 * after sending, a reset connection, or a 5xx (a proxy's 502/504 after forwarding). It was
 * NOT sent again; whether Nova acted is for Nova's own records (os-instance-actions) to say.
 */
export class ActionMaybeSent extends OpenStackError {
  /** The Nova server id the action was sent for. */
  readonly serverId: string;
  /** The Nova action's name as sent (for example `reboot`). */
  readonly action: string;
  /**
   * Wraps the transport failure `cause` of `action` on `serverId`; keeps its code and status and
   * sets `maybeSent`.
   */
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
