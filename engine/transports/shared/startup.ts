import { NeoError, errorMessage } from '../../util/errors.js';
import { describeCliExit, type CliProcess } from './cli-process.js';
import { formatSeconds } from './tuning.js';

/**
 * Runs a startup handshake against a freshly spawned CLI, bounded by `timeoutMs` and by the
 * process exiting. On failure the process group is torn down and one TRANSPORT_START_FAILED
 * error explains what happened, with the CLI's stderr tail.
 */
export async function handshake<T>(
  backendId: string,
  proc: CliProcess,
  timeoutMs: number,
  graceMs: number,
  steps: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new NeoError(
            'TRANSPORT_START_FAILED',
            `${backendId} did not finish its startup handshake within ${formatSeconds(timeoutMs)}`,
          ),
        ),
      timeoutMs,
    );
  });
  const exited = proc.exited.then((exit): never => {
    const how = describeCliExit(exit);
    throw new NeoError('TRANSPORT_START_FAILED', `${backendId} exited during startup (${how})`);
  });
  try {
    return await Promise.race([steps(), timeout, exited]);
  } catch (error) {
    await proc.terminate(graceMs);
    const tail = proc.stderrTail();
    const base =
      error instanceof NeoError && error.code === 'TRANSPORT_START_FAILED'
        ? error.message
        : `${backendId} failed to start: ${errorMessage(error)}`;
    const code =
      error instanceof NeoError && error.code !== 'TRANSPORT_SESSION_CLOSED' && error.code !== 'TRANSPORT_START_FAILED'
        ? error.code
        : 'TRANSPORT_START_FAILED';
    throw new NeoError(code, tail === '' ? base : `${base}\nstderr:\n${tail}`, {
      cause: error,
      ...(error instanceof NeoError && error.hint !== undefined ? { hint: error.hint } : {}),
    });
  } finally {
    clearTimeout(timer);
    exited.catch(() => undefined);
  }
}
