import { resolvePaths } from '../../execution/index.js';
import { decideAsk, toolAskFromInput, type AskDecision, type Posture, type ToolAsk } from '../../posture/index.js';
import type { AgentEvent, SessionSandbox } from '../types.js';
import { describeResult, startCommand } from './run-command.js';
import type { Step } from './script-model.js';
import { ToolFailure, type Workspace } from './workspace.js';
import { defined } from '../../util/defined.js';

/** Why a turn stopped early: the driver interrupted it, or the session is being stopped. */
export class TurnAbort extends Error {
  readonly why: 'interrupt' | 'stop';

  constructor(why: 'interrupt' | 'stop') {
    super(why === 'interrupt' ? 'interrupted' : 'stopped');
    this.why = why;
  }
}

/** An answer to a permission question. */
export interface Decision {
  allow: boolean;
  reason?: string;
}

/** What the player needs from its session: the live posture, the event sink, questions, the tree. */
export interface TurnControls {
  /** Aborted (with a TurnAbort as reason) by interrupt() or stop(). */
  readonly signal: AbortSignal;
  readonly workspace: Workspace;
  readonly env: NodeJS.ProcessEnv;
  /** Where its commands run (the session's sandbox). */
  readonly sandbox?: SessionSandbox;
  posture(): Posture;
  emit(event: AgentEvent): void;
  /** Raises a clarify event and waits for its answer (rejects with the abort reason). */
  ask(clarificationId: string, ask: ToolAsk, input: unknown): Promise<Decision>;
}

/** How a turn ended when it was not aborted. */
export type TurnOutcome =
  | { kind: 'complete'; text?: string }
  | { kind: 'failed'; message: string; transient: boolean; fatal: boolean }
  | { kind: 'ended'; ok: boolean; text: string };

interface TurnState {
  ordinal: number;
  /** Actions played so far this turn: the next one's id is `t<ordinal>.<played>`. */
  played: number;
  lastText?: string;
}

/**
 * Plays one turn's steps in order against the working tree. A tool call's id is
 * `t<turn>.<n>`, n counting the actions played in the turn (inside an ask's continuation too),
 * so a script made from a recording reports the same ids when replayed.
 */
export async function playTurn(steps: readonly Step[], ordinal: number, controls: TurnControls): Promise<TurnOutcome> {
  const state: TurnState = { ordinal, played: 0 };
  const outcome = await playSteps(steps, controls, state);
  if (outcome !== undefined) return outcome;
  return state.lastText === undefined ? { kind: 'complete' } : { kind: 'complete', text: state.lastText };
}

async function playSteps(
  steps: readonly Step[],
  controls: TurnControls,
  state: TurnState,
): Promise<TurnOutcome | undefined> {
  for (const step of steps) {
    throwIfAborted(controls.signal);
    const id = `t${state.ordinal}.${state.played++}`;
    switch (step.kind) {
      case 'say':
        state.lastText = step.text;
        controls.emit({ type: 'text', text: step.text });
        break;
      case 'think':
        controls.emit({ type: 'reasoning', text: step.text });
        break;
      case 'write':
        await toolCall(id, { path: step.path, content: step.content }, edit('write', step.path), controls, async () =>
          ok(await controls.workspace.write(step.path, step.content)),
        );
        break;
      case 'edit': {
        const input = step.all
          ? { path: step.path, search: step.search, replace: step.replace, all: true }
          : { path: step.path, search: step.search, replace: step.replace };
        await toolCall(id, input, edit('edit', step.path), controls, async () =>
          ok(await controls.workspace.edit(step.path, step.search, step.replace, step.all)),
        );
        break;
      }
      case 'delete':
        await toolCall(id, { path: step.path }, edit('delete', step.path), controls, async () =>
          ok(await controls.workspace.delete(step.path)),
        );
        break;
      case 'rename':
        await toolCall(id, { from: step.from, to: step.to }, edit('rename', step.from, step.to), controls, async () =>
          ok(await controls.workspace.rename(step.from, step.to)),
        );
        break;
      case 'run': {
        const input = step.cwd === undefined ? { command: step.command } : { command: step.command, cwd: step.cwd };
        const ask: ToolAsk =
          typeof step.command === 'string'
            ? { kind: 'execute', toolName: 'run', paths: [], command: step.command }
            : { kind: 'execute', toolName: 'run', paths: [], command: step.command.join(' '), argv: step.command };
        await toolCall(id, input, ask, controls, () => runStep(step, controls));
        break;
      }
      case 'ask': {
        const outcome = await askStep(id, step, controls, state);
        if (outcome !== undefined) return outcome;
        break;
      }
      case 'fail':
        return { kind: 'failed', message: step.message, transient: step.transient, fatal: step.fatal };
      case 'hang':
        await untilAborted(controls.signal);
        break;
      case 'end':
        return { kind: 'ended', ok: step.ok, text: step.text ?? state.lastText ?? '' };
    }
  }
  return undefined;
}

interface ToolOutput {
  output: string;
  isError: boolean;
}

const ok = (output: string): ToolOutput => ({ output, isError: false });

function edit(toolName: string, ...paths: string[]): ToolAsk {
  return { kind: 'edit', toolName, paths };
}

/**
 * The posture gate on one action (engine/posture decideAsk, paths resolved in the working tree).
 * An allow or deny it gives itself is reported as a `gate_decision`, so the record holds it.
 */
async function gate(id: string, ask: ToolAsk, controls: TurnControls): Promise<AskDecision> {
  const posture = controls.posture();
  const { root, resolved } = await resolvePaths(controls.workspace.root, ask.paths);
  const decision = decideAsk(posture, ask, { root, resolved });
  if (decision.kind !== 'ask')
    controls.emit({
      type: 'gate_decision',
      clarificationId: `gate-${id}`,
      toolName: ask.toolName,
      ask,
      allow: decision.kind === 'allow',
      reason: decision.reason,
      posture,
    });
  return decision;
}

/** tool_use, then the posture's verdict (allow / clarify / deny), then tool_result. */
async function toolCall(
  id: string,
  input: unknown,
  ask: ToolAsk,
  controls: TurnControls,
  perform: () => Promise<ToolOutput>,
): Promise<void> {
  controls.emit({ type: 'tool_use', id, name: ask.toolName, input });
  try {
    const decision = await gate(id, ask, controls);
    if (decision.kind === 'deny') return result(controls, id, { output: `denied: ${decision.reason}`, isError: true });
    if (decision.kind === 'ask') {
      const answer = await controls.ask(`clr-${id}`, ask, input);
      if (!answer.allow) return result(controls, id, { output: deniedText(answer), isError: true });
    }
    result(controls, id, await perform());
  } catch (error) {
    if (error instanceof TurnAbort) {
      result(controls, id, { output: error.message, isError: true });
      throw error;
    }
    result(controls, id, {
      output:
        error instanceof ToolFailure
          ? error.message
          : `${ask.toolName} failed: ${(error as Error).message ?? String(error)}`,
      isError: true,
    });
  }
}

/** A question about a tool the script does not perform itself; each answer has its own continuation. */
async function askStep(
  id: string,
  step: Extract<Step, { kind: 'ask' }>,
  controls: TurnControls,
  state: TurnState,
): Promise<TurnOutcome | undefined> {
  controls.emit({ type: 'tool_use', id, name: step.toolName, input: step.input });
  let decision: Decision;
  try {
    const ask = toolAskFromInput(step.toolName, step.input);
    const verdict = await gate(id, ask, controls);
    if (verdict.kind === 'ask') {
      const answer = await controls.ask(`clr-${id}`, ask, step.input);
      decision = answer.allow ? answer : { allow: false, reason: deniedText(answer) };
    } else {
      decision = verdict.kind === 'allow' ? { allow: true } : { allow: false, reason: `denied: ${verdict.reason}` };
    }
  } catch (error) {
    if (error instanceof TurnAbort) result(controls, id, { output: error.message, isError: true });
    throw error;
  }
  result(
    controls,
    id,
    decision.allow
      ? { output: 'allowed', isError: false }
      : { output: decision.reason ?? deniedText(decision), isError: true },
  );
  // The continuations are ordinary actions: the posture gates each of them as usual.
  return playSteps(decision.allow ? step.onAllow : step.onDeny, controls, state);
}

async function runStep(step: Extract<Step, { kind: 'run' }>, controls: TurnControls): Promise<ToolOutput> {
  const cwd = await controls.workspace.resolveDir(step.cwd);
  const env = step.env === undefined ? controls.env : { ...controls.env, ...step.env };
  const command = startCommand(step.command, {
    cwd,
    env,
    ...defined({ sandbox: controls.sandbox }),
  });
  let done;
  try {
    done = await abortable(command.result, controls.signal);
  } catch (error) {
    await command.kill();
    throw error;
  }
  const isError = done.spawnError !== undefined || done.exitCode !== step.expectExit;
  return { output: describeResult(done), isError };
}

function result(controls: TurnControls, id: string, output: ToolOutput): void {
  controls.emit({ type: 'tool_result', id, output: output.output, isError: output.isError });
}

function deniedText(decision: Decision): string {
  return decision.reason === undefined || decision.reason === ''
    ? 'denied by the user'
    : `denied by the user: ${decision.reason}`;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/** Never resolves; rejects with the abort reason once `signal` aborts. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** `promise`, unless `signal` aborts first. */
export async function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  throwIfAborted(signal);
  let off = (): void => undefined;
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    off = () => signal.removeEventListener('abort', onAbort);
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    off();
  }
}
