/**
 * The body of a definitions worker thread: loads every layer for the options it is sent and
 * posts back the result as plain data (see off-thread.ts). Parsing and validating a large
 * project layer takes its time here, not on the event loop of the process that asked.
 */
import { parentPort } from 'node:worker_threads';
import { loadDefinitions, type LoaderOptions } from './loader.js';
import { plainLoad } from './plain-set.js';

parentPort?.once('message', (options: LoaderOptions) => {
  loadDefinitions(options).then(
    (result) => parentPort!.postMessage({ ok: true, load: plainLoad(result) }),
    (error: unknown) =>
      parentPort!.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
});
