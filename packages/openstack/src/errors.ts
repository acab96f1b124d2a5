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

  constructor(code: OpenStackErrorCode, message: string, status?: number) {
    super(message);
    this.name = code;
    this.code = code;
    this.status = status;
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
