import type { Writable } from 'node:stream';

/**
 * Resolves once everything written to `stream` has been handed to the OS. Writes to a pipe
 * whose reader is slower than neo are queued in the process (the kernel's pipe holds 64 KB), and
 * `process.exit` drops that queue: `neo flow show --json | jq` would get 65,536 bytes and a
 * clean exit. The write callback of an empty write runs after every write queued before it. A
 * stream whose reader went away (EPIPE, already absorbed) or that was destroyed is not waited for.
 */
export function drained(stream: Writable): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.once('error', done);
    stream.once('close', done);
    stream.write('', done);
  });
}
