import type { ClarifyRule } from '../../definitions/index.js';
import type { ReadTurnResult, StartResult, StopOutcome } from '../../session/index.js';
import { isPermanentProviderCode, PROVIDER_CODES } from '../../transports/index.js';
import { NeoError, UsageError } from '../../util/errors.js';
import { matchClarifyRules, toolAskFromInput, type ToolAsk } from '../../posture/index.js';
import { builtinAnswer } from '../core/clarify-rules.js';
import type { ExecutionOutcome } from '../core/execution.js';
import type { StepError } from '../core/state.js';
import type { AgentContext, AgentStepDriver, AgentTask, GateRun } from './driver.js';
import { gateGuidance } from './gate.js';
import { checkOutputSchema } from './output-schema.js';
import { SessionWatch } from './session-watch.js';

type Outcome = Omit<ExecutionOutcome, 'exec'>;
type Judged = { done: Outcome; stop: StopOutcome } | { guide: string };

/**
 * The built-in driver: start → read-turn loop → stop, with fixed rules. A clarification is
 * answered by {@link builtinAnswer}; a finished turn meets the verify gate, whose failing output
 * goes back to the same session as guidance up to `attempts`; the verdict is honest — a gate
 * that still fails, a step that changed nothing it had to, an answer that breaks its schema, a
 * silent agent or a spent budget is never a success.
 */
export class RulesDriver implements AgentStepDriver {
  async drive(task: AgentTask, ctx: AgentContext): Promise<Outcome> {
    const s = task.settings;
    const caller = { scope: `flow:${task.runId}:${task.exec}` };
    const evidence: { baseline?: Pick<GateRun, 'passed' | 'exitCode'>; gate?: Record<string, unknown> } = {};
    if (s.verify?.baseline) {
      const run = await ctx.runGate(s.verify);
      evidence.baseline = { passed: run.passed, exitCode: run.exitCode };
    }
    if (ctx.signal.aborted) return failed(abortError(ctx.signal), {});
    const budget = ctx.budget();
    if (budget !== undefined) return failed(budget, {});

    // Listening from before the start: a fast agent reports (a retry, a failure) before it returns.
    const watch = new SessionWatch(ctx.sessions, ctx);
    let start: StartResult;
    try {
      start = (await ctx.sessions.execute(
        {
          op: 'start',
          brief: task.brief,
          maxPosture: s.maxPosture,
          initialPosture: s.initialPosture,
          ...(s.backend === undefined ? {} : { backend: s.backend }),
          cwd: task.cwd,
          ...(s.model === undefined ? {} : { agentModel: s.model }),
          ...(s.effort === undefined ? {} : { effort: s.effort }),
          ...(s.maxRounds === undefined ? {} : { maxRounds: s.maxRounds }),
          ...(s.allowedTools === undefined ? {} : { allowedTools: s.allowedTools }),
          ...(s.appendSystemPrompt === undefined ? {} : { appendSystemPrompt: s.appendSystemPrompt }),
          ...(s.taskTags.length === 0 ? {} : { taskTags: s.taskTags }),
          ...(s.script === undefined ? {} : { backendOptions: { script: s.script } }),
        },
        caller,
      )) as StartResult;
    } catch (error) {
      watch.close();
      return failed(sessionError(error, 'could not start the agent session'), {});
    }
    const sessionId = start.sessionId;
    ctx.progress({
      backend: start.backend,
      round: 1,
      maxRounds: start.maxRounds,
      ...(s.model === undefined ? {} : { model: s.model }),
    });

    // Files the turns touched, for the live view; the step's change itself is ctx.stepDiff().
    const touched = new Set<string>();
    const stall = new AbortController();
    watch.attach(sessionId, {
      maxRounds: start.maxRounds,
      onStall: () => stall.abort(),
      ...(task.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: task.idleTimeoutMs }),
    });
    let text = '';
    let attempt = 1;
    let result: { done: Outcome; stop: StopOutcome };
    const outputs = () => ({
      text,
      costUsd: watch.costUsd,
      rounds: watch.rounds,
      sessionId,
      backend: start.backend,
      ...(evidence.baseline === undefined ? {} : { baseline: evidence.baseline }),
      ...(evidence.gate === undefined ? {} : { gate: evidence.gate }),
    });

    const judge = async (canGuide: boolean, exhausted?: StepError): Promise<Judged> => {
      const gate = s.verify;
      if (gate !== undefined) {
        watch.touch();
        ctx.progress({ note: `checking \`${gate.run}\`` });
        const run = await ctx.runGate(gate);
        ctx.progress({ note: run.passed ? 'check passed' : 'check failed' });
        watch.touch();
        evidence.gate = {
          command: gate.run,
          passed: run.passed,
          exitCode: run.exitCode ?? null,
          attempt,
          attempts: gate.attempts,
          ...(run.flaky ? { flaky: true } : {}),
          ...(run.timedOut ? { timedOut: true } : {}),
          tail: run.tail,
        };
        if (!run.passed) {
          if (canGuide && attempt < gate.attempts && !ctx.signal.aborted) {
            const over = ctx.budget();
            if (over !== undefined) return { done: failed(over, outputs()), stop: 'aborted' };
            const guidance = gateGuidance(gate, run, attempt);
            attempt++;
            return { guide: guidance };
          }
          const preexisting = evidence.baseline?.passed === false ? '; it already failed before the agent started' : '';
          const error = exhausted ?? {
            code: 'FLOW_GATE_FAILED',
            message: `the check \`${gate.run}\` still fails after ${attempt} attempt${attempt === 1 ? '' : 's'} (${run.timedOut ? 'timed out' : `exit ${run.exitCode ?? '?'}`})${preexisting}`,
          };
          return { done: failed(error, outputs(), 'failed'), stop: 'failed' };
        }
      }
      const changed = s.requireChange ? await changedFiles(ctx) : undefined;
      if (typeof changed === 'object') return { done: failed(changed, outputs(), 'failed'), stop: 'failed' };
      if (changed === 0) {
        return {
          done: failed(
            {
              code: 'FLOW_NO_CHANGE',
              message:
                'the agent changed no file, and this step requires a change (set requireChange: false for review-only steps)',
            },
            outputs(),
            'no-change',
          ),
          stop: 'failed',
        };
      }
      if (s.outputSchema !== undefined) {
        const checked = await checkOutputSchema(text, s.outputSchema);
        if (!checked.ok)
          return {
            done: failed({ code: 'FLOW_OUTPUT_SCHEMA', message: checked.message }, outputs(), 'failed'),
            stop: 'failed',
          };
        return {
          done: {
            status: 'succeeded',
            verdict: 'success',
            outputs: { ...outputs(), verdict: 'success', json: checked.value },
          },
          stop: 'success',
        };
      }
      return {
        done: { status: 'succeeded', verdict: 'success', outputs: { ...outputs(), verdict: 'success' } },
        stop: 'success',
      };
    };

    try {
      for (;;) {
        const turn = await readTurn(ctx, sessionId, caller, [ctx.signal, stall.signal]);
        if (turn === 'aborted') {
          const error = stall.signal.aborted ? stalledError(task.idleTimeoutMs) : abortError(ctx.signal);
          await quietly(ctx.sessions.execute({ op: 'interrupt', sessionId }, caller));
          result = {
            done: failed(error, outputs(), stall.signal.aborted ? 'stalled' : 'aborted'),
            stop: stall.signal.aborted ? 'failed' : 'aborted',
          };
          break;
        }
        if (turn.kind === 'clarification') {
          const ask = turn.ask ?? toolAskFromInput(turn.toolName, turn.input, s.editToolNames);
          const decision =
            personaDenies(ask, s.denyRules, task.cwd) ??
            builtinAnswer(ask, {
              posture: start.maxPosture,
              workspace: task.cwd,
              allowCommands: [...s.allowCommands, ...(s.verify ? [s.verify.run] : [])],
            });
          ctx.progress({ note: `${decision.allow ? 'allowed' : 'denied'} ${turn.toolName}` });
          await ctx.sessions.execute(
            {
              op: 'answer',
              sessionId,
              clarificationId: turn.clarificationId,
              allow: decision.allow,
              reason: decision.reason,
            },
            caller,
          );
          continue;
        }
        for (const file of turn.turnDiff?.files ?? []) touched.add(file.path);
        ctx.progress({ filesChanged: touched.size });
        let judged: Judged;
        if (turn.kind === 'turn_complete') {
          text = turn.text;
          judged = await judge(true);
        } else if (turn.kind === 'ended') {
          text = turn.text;
          judged = turn.ok
            ? await judge(false)
            : {
                done: failed(
                  {
                    code: 'FLOW_AGENT_FAILED',
                    message: `the agent ended its session with a failure${turn.text ? `: ${clip(turn.text)}` : ''}`,
                    transient: true,
                  },
                  outputs(),
                  'failed',
                ),
                stop: 'failed',
              };
        } else if (turn.kind === 'max_rounds') {
          text = turn.text;
          judged = await judge(false, {
            code: 'FLOW_MAX_ROUNDS',
            message: `the agent used all ${turn.rounds} rounds and the check still fails`,
          });
        } else {
          const error = turn.stalled ? stalledError(task.idleTimeoutMs) : turnError(turn);
          judged = { done: failed(error, outputs(), turn.stalled ? 'stalled' : 'failed'), stop: 'failed' };
        }
        if ('guide' in judged) {
          await ctx.sessions.execute({ op: 'guide', sessionId, text: judged.guide }, caller);
          continue;
        }
        result = judged;
        break;
      }
    } catch (error) {
      result = { done: failed(sessionError(error, 'the session failed'), outputs(), 'failed'), stop: 'failed' };
    } finally {
      watch.close();
    }
    await quietly(
      ctx.sessions.execute(
        { op: 'stop', sessionId, outcome: result.stop, note: result.done.error?.message ?? 'verified' },
        caller,
      ),
    );
    await quietly(ctx.sessions.releaseAllOwnedBy(caller.scope));
    return result.done;
  }
}

/** A deny from the persona's own rules, which come before the built-in ones; undefined when none matches. */
function personaDenies(
  ask: ToolAsk,
  rules: readonly ClarifyRule[] | undefined,
  cwd: string,
): { allow: false; reason: string } | undefined {
  if (rules === undefined || rules.length === 0) return undefined;
  const verdict = matchClarifyRules(ask, { clarify: [...rules] }, cwd);
  return verdict.rule === 'otherwise' ? undefined : { allow: false, reason: verdict.reason };
}

/** One read-turn, abandoned (not cancelled) when any signal aborts. */
async function readTurn(
  ctx: AgentContext,
  sessionId: string,
  caller: { scope: string },
  signals: AbortSignal[],
): Promise<ReadTurnResult | 'aborted'> {
  if (signals.some((s) => s.aborted)) return 'aborted';
  const read = ctx.sessions.execute(
    { op: 'read-turn', sessionId, includeDiff: true },
    caller,
  ) as Promise<ReadTurnResult>;
  read.catch(() => undefined);
  let cleanup = () => {};
  const aborted = new Promise<'aborted'>((resolve) => {
    const on = () => resolve('aborted');
    for (const signal of signals) signal.addEventListener('abort', on, { once: true });
    cleanup = () => signals.forEach((signal) => signal.removeEventListener('abort', on));
  });
  try {
    return await Promise.race([read, aborted]);
  } finally {
    cleanup();
  }
}

/** How many files the step changed from its base, or why that cannot be measured (its `.git` redirected). */
async function changedFiles(ctx: AgentContext): Promise<number | StepError> {
  try {
    return (await ctx.stepDiff()).files.length;
  } catch (error) {
    return {
      code: 'FLOW_DIFF_FAILED',
      message: `could not measure the step's change: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function failed(error: StepError, outputs: Record<string, unknown>, verdict = 'failed'): Outcome {
  return { status: 'failed', verdict, error, outputs: { ...outputs, verdict } };
}

/**
 * A failed turn; a failure of the model provider keeps the transport's code (a rejected key is
 * TRANSPORT_UNAUTHENTICATED, not a generic agent error), and retrying the step cannot fix a rejected key.
 */
function turnError(turn: { message: string; code?: string }): StepError {
  const provider = Object.values(PROVIDER_CODES).find((c) => c === turn.code);
  const code = provider ?? 'FLOW_AGENT_ERROR';
  const error: StepError = { code, message: `the agent failed: ${clip(turn.message)}` };
  if (!isPermanentProviderCode(code)) error.transient = true;
  return error;
}

function stalledError(idleTimeoutMs: number | undefined): StepError {
  const after = idleTimeoutMs === undefined ? 'its idle timeout' : `${Math.round(idleTimeoutMs / 100) / 10}s`;
  return { code: 'FLOW_STEP_STALLED', message: `the agent sent no event for ${after}: stalled`, transient: true };
}

function abortError(signal: AbortSignal): StepError {
  const reason = signal.reason as Partial<StepError> | undefined;
  if (reason !== undefined && typeof reason.code === 'string')
    return { code: reason.code, message: reason.message ?? reason.code };
  return { code: 'FLOW_INTERRUPTED', message: 'interrupted' };
}

function sessionError(error: unknown, what: string): StepError {
  if (error instanceof NeoError) {
    return {
      code: error.code,
      message: `${what}: ${error.message}`,
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      ...(error instanceof UsageError || error.code === 'TRANSPORT_BINARY_MISSING' ? {} : { transient: true }),
    };
  }
  return {
    code: 'FLOW_AGENT_ERROR',
    message: `${what}: ${error instanceof Error ? error.message : String(error)}`,
    transient: true,
  };
}

async function quietly(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch {
    // Stopping a session that already ended is fine.
  }
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
