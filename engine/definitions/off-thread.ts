import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NeoError } from '../util/errors.js';
import { packageRoot } from '../util/package-root.js';
import type { LoaderOptions, LoadResult } from './loader.js';
import { setFromPlain, type PlainLoad } from './plain-set.js';

type WorkerReply = { ok: true; load: PlainLoad } | { ok: false; message: string };

/**
 * {@link loadDefinitions} in a worker thread. A long-lived process that serves others (the
 * session daemon) loads a caller's project with it: a project's definitions are untrusted input,
 * and parsing a large one on the event loop would stall every other session meanwhile.
 */
export async function loadDefinitionsOffThread(options: LoaderOptions): Promise<LoadResult> {
  // Imported here: the definitions area is loaded by every command that reads definitions, and
  // only the session daemon starts a worker (node:worker_threads is not free to load).
  const { Worker } = await import('node:worker_threads');
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile());
    let settled = false;
    const fail = (message: string) => {
      if (settled) return;
      settled = true;
      reject(new NeoError('DEF_LOAD_FAILED', `loading definitions failed: ${message}`));
    };
    worker.once('message', (reply: WorkerReply) => {
      settled = true;
      void worker.terminate();
      if (reply.ok) resolve(setFromPlain(reply.load));
      else reject(new NeoError('DEF_LOAD_FAILED', `loading definitions failed: ${reply.message}`));
    });
    worker.once('error', (error) => fail(error.message));
    worker.once('exit', (code) => fail(`the worker exited (code ${code})`));
    worker.postMessage(options);
  });
}

/**
 * The worker's script: beside this module when compiled by tsc, else the bundle's own entry
 * (`npm run build` writes `dist/bin/definitions-worker.js`; the sources under test use it too).
 */
function workerFile(): string {
  const sibling = fileURLToPath(new URL('./load-worker.js', import.meta.url));
  return existsSync(sibling) ? sibling : join(packageRoot(), 'dist', 'bin', 'definitions-worker.js');
}
