/**
 * The local engine as a {@link FlowEngine}: a run lives in the process that drives it and in
 * NEO_HOME. `start` drives the run to rest here; `cancel` interrupts its driving process as a
 * Ctrl-C would (the run is checkpointed `interrupted` and stays resumable); `result` reads its
 * record. Its StepEngine is none: a step just runs, a backoff is a timer, an approval the sealed
 * answer file (runtime/approvals.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { startRun } from '../runtime/start-run.js';
import { driverAlive, readRunRecord } from '../store/runs.js';
import type { FlowEngine, RunRequest, RunResult } from './engine.js';

const LIVE = new Set(['running', 'waiting']);

export class LocalEngine implements FlowEngine {
  readonly name = 'local' as const;

  constructor(private readonly home: string) {}

  async start(request: Omit<RunRequest, 'runId'>): Promise<{ runId: string; enqueued: boolean }> {
    const outcome = await startRun({
      home: this.home,
      cwd: request.cwd,
      planFile: request.planFile,
      inputs: request.inputs,
      ...(request.backend === undefined ? {} : { backend: request.backend }),
      ...(request.yes === true ? { yes: true } : {}),
    });
    return { runId: outcome.runId, enqueued: false };
  }

  /** Interrupts the run's driver; false when no live process drives it. */
  async interrupt(runId: string): Promise<{ runId: string; interrupted: boolean; status: string; pid?: number }> {
    const record = await readRunRecord(this.home, runId);
    const live = LIVE.has(record.status) && driverAlive(record);
    if (live) process.kill(record.pid!, 'SIGINT');
    return { runId: record.runId, interrupted: live, status: record.status, ...(live ? { pid: record.pid! } : {}) };
  }

  async cancel(runId: string): Promise<void> {
    await this.interrupt(runId);
  }

  async result(runId: string, timeoutMs: number): Promise<RunResult | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await readRunRecord(this.home, runId);
      if (!LIVE.has(record.status) || !driverAlive(record))
        return { runId: record.runId, status: record.status as RunResult['status'] };
      if (Date.now() >= deadline) return undefined;
      await sleep(200);
    }
  }

  async close(): Promise<void> {}
}
