// pino JSON logs to stdout; secrets are redacted by path as a second line of defence.
import { pino, type Logger } from 'pino';

export function createRuntimeLogger(opts: { name?: string; level?: string } = {}): Logger {
  return pino({
    name: opts.name ?? 'noderepair',
    level: opts.level ?? process.env['LOG_LEVEL'] ?? 'info',
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
  });
}
