// pino JSON logs to stdout; secrets are redacted by path as a second line of defence.
import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * pino writes the call's message as `msg`; a `msg` in the logged object would be written as
 * a second `msg` key, and `JSON.parse` keeps only the last. Such a field is kept, as `detail`
 * (or `msgField` when the object has a `detail` too), so nothing is lost.
 */
function withoutMsgField(obj: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(obj, 'msg')) return obj;
  const { msg, ...rest } = obj;
  return { ...rest, [Object.hasOwn(rest, 'detail') ? 'msgField' : 'detail']: msg };
}

/**
 * A pino logger writing JSON lines to stdout (or the destination), with password, token and
 * authorization fields redacted, `time` in ISO 8601 (UTC). Level from the options, else
 * `LOG_LEVEL`, else `info`.
 */
export function createRuntimeLogger(
  opts: {
    name?: string;
    level?: string;
    /** Where the JSON lines go (default stdout): a file, or a stream a test reads. */
    destination?: DestinationStream;
  } = {},
): Logger {
  const options = {
    name: opts.name ?? 'noderepair',
    level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
    // ISO 8601 in UTC, as kubectl logs and Events show time (pino's default is epoch ms).
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        '*.password',
        '*.token',
        '*.authorization',
        '*.Authorization',
        'headers.authorization',
      ],
      censor: '[redacted]',
    },
    formatters: { log: withoutMsgField },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
