import pino, { type Logger } from 'pino';

/** Logs go to stderr (fd 2) only: in `mnemo stdio`, stdout carries the protocol. */
export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: { name: 'mnemo' },
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          'token',
          '*.token',
          'req.headers.authorization',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
