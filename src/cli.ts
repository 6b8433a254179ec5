#!/usr/bin/env node
// The mnemo program (dist/cli.js, the package's bin): hands argv, the environment, the
// streams and the process's signals to main, and exits with what it returns.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from './cli/main.js';

/** True when node runs this file (directly or through the bin symlink), not when imported. */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return fs.realpathSync(entry) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2), {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    signals: {
      on: (signal, listener) => process.on(signal, listener),
      exit: (code) => process.exit(code),
      end: () => {
        // With no listener left, the signal's default action ends the process, thread pool or not.
        process.removeAllListeners('SIGTERM');
        process.kill(process.pid, 'SIGTERM');
      },
    },
  }).then((code) => {
    process.exitCode = code;
  });
}
