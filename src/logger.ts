import { createRequire } from 'node:module';
import type pinoModule from 'pino';
import type { Logger } from 'pino';

// pino is CommonJS: required, not imported, so node does not first scan its source for the names
// it exports (as it does for every CommonJS module an ES module imports), a few ms of each start.
const require = createRequire(import.meta.url);
const pino = require('pino') as typeof pinoModule;

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
