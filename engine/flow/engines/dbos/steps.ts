/**
 * The dbos engine's part inside a run (StepEngine): a step runs at least once and is recorded
 * once — its outcome goes to neo.step_results under the step's key (step, item, iteration,
 * attempt), the first recorded wins, and an execution whose key is already recorded (the worker
 * died after the step finished but before its events reached the run's record) returns that
 * outcome without running again. A signal is a row of neo.signals, polled; a backoff sleep keeps
 * its wake-up time there too, so a worker that takes the run over sleeps only what is left.
 *
 * A database that stops answering is retried for {@link RETRY_MS}: a restarted or briefly
 * frozen Postgres costs a pause, not the step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { ExecutionOutcome } from '../../core/execution.js';
import type { StepEngine } from '../engine.js';
import { NeoError } from '../../../util/errors.js';
import { readSignal, recordOutcome, recordedOutcome, sendSignal } from './run-table.js';

/** How long a database call is retried before the step (or wait) fails. */
const RETRY_MS = 60_000;
/** How often a waiting signal is looked for. */
const POLL_MS = 250;

/**
 * A run whose workspace travels through a git remote (remote-workspace.ts): each finished step's
 * workspace becomes a commit on the remote before its outcome is recorded, and the record names
 * it. `settle` runs one step's snapshot, record and publication at a time, in order.
 */
export interface StepResults {
  settle(key: string, record: (commit: string) => Promise<{ commit?: string }>): Promise<void>;
}

export function dbosSteps(pool: pg.Pool, runId: string, executor: string, results?: StepResults): StepEngine {
  return {
    async step(key, run) {
      const recorded = await retrying(() => recordedOutcome(pool, runId, key));
      if (recorded !== undefined) return recorded;
      const outcome: ExecutionOutcome = await run();
      // An interrupted execution is no outcome of the step: the run is resumed and it runs again.
      if (outcome.error?.code === 'FLOW_INTERRUPTED') return outcome;
      if (results === undefined)
        return (await retrying(() => recordOutcome(pool, runId, key, executor, outcome))).outcome;
      let kept = outcome;
      try {
        await results.settle(key, async (commit) => {
          const first = await retrying(() => recordOutcome(pool, runId, key, executor, outcome, commit));
          kept = first.outcome;
          return first;
        });
      } catch (error) {
        // The step's workspace could not reach the remote: nothing recorded, the step fails with why.
        if (!(error instanceof NeoError)) throw error;
        return { ...outcome, status: 'failed', error: { code: error.code, message: error.message } };
      }
      return kept;
    },
    async waitForSignal<T>(key: string, signal: AbortSignal): Promise<T | undefined> {
      while (!signal.aborted) {
        const value = await retrying(() => readSignal(pool, runId, `signal:${key}`), signal);
        if (value !== undefined) return value as T;
        await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
      }
      return undefined;
    },
    async sleep(key, ms, signal) {
      const wanted = { until: Date.now() + ms };
      const { value } = await retrying(() => sendSignal(pool, runId, `sleep:${key}`, wanted), signal);
      const left = (value as { until: number }).until - Date.now();
      if (left > 0) await sleep(left, undefined, { signal });
    },
  };
}

/**
 * The key an approval's answer is a signal under: the unit and its asking (a retried or looped
 * approval asks again, and the first asking's answer is no answer to the next).
 */
export function approvalKey(step: string, asking: string | undefined): string {
  return asking === undefined ? `approval:${step}` : `approval:${step}@${asking}`;
}

/** The signal row `neo flow approve` answers an approval under ({@link approvalKey}). */
export function approvalSignal(step: string, asking: string | undefined): string {
  return `signal:${approvalKey(step, asking)}`;
}

async function retrying<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const deadline = Date.now() + RETRY_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() + wait > deadline || signal?.aborted === true) throw error;
      await sleep(wait, undefined, signal === undefined ? {} : { signal }).catch(() => undefined);
    }
  }
}
