import type { Writable } from 'node:stream';
import { abandonOpenWork } from '../engine/util/open-work.js';
import { EXIT } from './exit-codes.js';

/**
 * The last line of defence against a silent green. Node ends a process whose event loop is empty
 * with exit code 0, even while a command still awaits a promise: nothing is left that could ever
 * resolve it. That is always a bug, so when it happens before the command settled, every open
 * run is marked failed with the cause, the cause is printed, and the process exits 1.
 */
export function guardTheEnd(stderr: Writable, command: string): { settled(): void } {
  let settled = false;
  const onBeforeExit = () => {
    if (settled) return;
    const cause = `neo ran out of work to wait for while \`${command}\` was still running: nothing was left that could finish it (a bug in neo)`;
    const abandoned = abandonOpenWork(cause);
    stderr.write(
      `neo: error[CLI_ABANDONED]: ${cause}${abandoned.length === 0 ? '' : `; marked failed: ${abandoned.join(', ')}`}\n`,
    );
    process.exit(EXIT.failed);
  };
  process.on('beforeExit', onBeforeExit);
  return {
    settled() {
      settled = true;
      process.off('beforeExit', onBeforeExit);
    },
  };
}
