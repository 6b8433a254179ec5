// The settings of the logger: its level.
import { z } from 'zod';
import type { Setting } from './rows.js';

/** pino's level (src/logger.ts). */
export const LOGGING = {
  logLevel: {
    variable: 'MNEMO_LOG_LEVEL',
    default: 'info',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'MNEMO_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    }),
    meaning: 'pino level; logs always go to stderr',
  },
} satisfies Record<string, Setting>;
