/**
 * The scheduled distiller pass of `neo serve` (seed 004 §7), inside a failure-soft envelope:
 * throttle (no pass within 20 hours of the last one), budget reserve (no pass once the passes of
 * the last 24 hours used the token reserve), a timeout, and one audit line per attempt in
 * learning/distill-audit.jsonl — ran, skipped or failed, with why. A failing pass never
 * reaches the server. On by default (server.lessonsCron, default 0 4 * * *); NEO_LESSONS=off
 * turns it off.
 */
import { join } from 'node:path';
import { Cron } from 'croner';
import { readJsonl, JsonlAppender } from '../util/jsonl.js';
import { agentDistil } from './distil-agent.js';
import { runDistillPass, type DistilModel, type DistillOptions } from './distiller.js';
import { readLessonsFile } from './lessons-file.js';
import { defined } from '../util/defined.js';

export const DEFAULT_LESSONS_CRON = '0 4 * * *';
export const DISTILL_THROTTLE_MS = 20 * 60 * 60 * 1000;
export const DISTILL_TIMEOUT_MS = 10 * 60 * 1000;
/** Tokens the scheduled passes of any 24 hours may use together. */
export const DISTILL_TOKEN_RESERVE = 200_000;

export interface AuditLine {
  at: string;
  result: 'ran' | 'skipped' | 'failed';
  reason?: string;
  tokens?: number;
  outcomes?: number;
  lessons?: number;
}

export function auditPath(home: string): string {
  return join(home, 'learning', 'distill-audit.jsonl');
}

/** Whether the scheduled pass is on: NEO_LESSONS=off (or 0, false) turns it off. */
export function lessonsEnabled(env: NodeJS.ProcessEnv): boolean {
  return !['off', '0', 'false', 'no'].includes((env.NEO_LESSONS ?? '').trim().toLowerCase());
}

export interface ScheduledPassOptions {
  home: string;
  cwd: string;
  backends: () => readonly string[];
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  timeoutMs?: number;
  reserveTokens?: number;
  /** The model (tests); default: neo's own agent, cheap class. */
  distil?: (signal: AbortSignal, spent: (tokens: number) => void) => DistilModel;
  log?: DistillOptions['log'];
}

/** One attempt of the scheduled pass, in its envelope; resolves with its audit line, never rejects. */
export async function scheduledPass(o: ScheduledPassOptions): Promise<AuditLine> {
  const now = (o.now ?? Date.now)();
  const audit = (line: Omit<AuditLine, 'at'>) => writeAudit(o.home, { at: new Date(now).toISOString(), ...line });
  try {
    const last = (await readLessonsFile(o.home)).distilledAt;
    if (last !== undefined && now - Date.parse(last) < DISTILL_THROTTLE_MS)
      return await audit({ result: 'skipped', reason: `throttled: the last pass ran at ${last}` });
    const used = await tokensUsedSince(o.home, now - 24 * 60 * 60 * 1000);
    const reserve = o.reserveTokens ?? DISTILL_TOKEN_RESERVE;
    if (used >= reserve)
      return await audit({ result: 'skipped', reason: `budget reserve spent: ${used} of ${reserve} tokens in 24h` });
    const controller = new AbortController();
    const timeoutMs = o.timeoutMs ?? DISTILL_TIMEOUT_MS;
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    let tokens = 0;
    const spent = (n: number) => (tokens += n);
    const distil =
      o.distil?.(controller.signal, spent) ??
      agentDistil({
        home: o.home,
        cwd: o.cwd,
        ...defined({ env: o.env }),
        signal: controller.signal,
        spent: (u) => spent(u.tokens),
      });
    try {
      const aborted = new Promise<never>((_, reject) =>
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true }),
      );
      aborted.catch(() => undefined);
      const report = await Promise.race([
        runDistillPass({
          home: o.home,
          distil,
          backends: o.backends(),
          now: () => now,
          ...(o.log ? { log: o.log } : {}),
        }),
        aborted,
      ]);
      return await audit({ result: 'ran', tokens, outcomes: report.outcomes, lessons: report.lessons.length });
    } finally {
      clearTimeout(timer);
    }
  } catch (error) {
    return audit({ result: 'failed', reason: error instanceof Error ? error.message : String(error) }).catch(() => ({
      at: new Date(now).toISOString(),
      result: 'failed' as const,
    }));
  }
}

/** Runs {@link scheduledPass} on `cron`; undefined when disabled. */
export function scheduleDistill(
  cron: string | undefined,
  options: ScheduledPassOptions,
): { stop(): void; next(): Date | null } | undefined {
  if (!lessonsEnabled(options.env ?? process.env)) return undefined;
  let job: Cron;
  try {
    job = new Cron(cron ?? DEFAULT_LESSONS_CRON, { protect: true, unref: true }, async () => {
      await scheduledPass(options);
    });
  } catch (error) {
    // A bad expression in neo.yaml turns the pass off, loudly; it never stops the server.
    options.log?.('warn', 'learn_schedule_invalid', { cron, error: error instanceof Error ? error.message : error });
    return undefined;
  }
  return { stop: () => job.stop(), next: () => job.nextRun() };
}

async function writeAudit(home: string, line: AuditLine): Promise<AuditLine> {
  const appender = new JsonlAppender(auditPath(home));
  try {
    await appender.append(line);
  } finally {
    await appender.close();
  }
  return line;
}

async function tokensUsedSince(home: string, since: number): Promise<number> {
  const { records } = await readJsonl<AuditLine>(auditPath(home)).catch(() => ({ records: [] as AuditLine[] }));
  return records
    .filter((r) => Date.parse(r.at) >= since && typeof r.tokens === 'number')
    .reduce((n, r) => n + (r.tokens ?? 0), 0);
}
