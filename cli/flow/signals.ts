import { killLiveGroupsNow } from '../../engine/execution/index.js';
import { abandonOpenWork } from '../../engine/util/open-work.js';
import { writeLine, type CommandIO } from '../io.js';

/**
 * Ctrl-C handling for a command that runs agents (flow run and resume, persona run, script
 * play): the first SIGINT (or a SIGTERM, or the SIGHUP of a closed terminal) interrupts — live
 * sessions are interrupted, a run is checkpointed and left resumable; a second SIGINT kills at
 * once: an open run is recorded interrupted, every process group neo started is SIGKILLed (they
 * lead their own groups, so the terminal's Ctrl-C never reached them), and Node's default
 * handling is restored and the signal re-raised.
 */
export function interruptOnSignals(io: CommandIO): {
  signal: AbortSignal;
  dispose: () => void;
  /** Interrupts as a first Ctrl-C would (a person's cancel from the control plane). */
  interrupt: (why: string) => void;
} {
  const controller = new AbortController();
  let count = 0;
  const onSignal = () => {
    count++;
    if (count === 1) {
      writeLine(io.stderr, 'interrupting… (Ctrl-C again to kill)');
      controller.abort();
      return;
    }
    dispose();
    abandonOpenWork('killed by a second Ctrl-C', 'interrupted');
    killLiveGroupsNow();
    process.kill(process.pid, 'SIGINT');
  };
  const dispose = () => {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGHUP', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const interrupt = (why: string) => {
    if (controller.signal.aborted) return;
    writeLine(io.stderr, `interrupting… (${why})`);
    controller.abort();
  };
  return { signal: controller.signal, dispose, interrupt };
}
