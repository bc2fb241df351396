/**
 * The llm driver's one tool: `code-session`, op-discriminated like seed 004's. The machine runs
 * read-turn itself and sends each result as the next message; what the model decides with a
 * decision op (start, answer, guide, stop) is recorded as a proposal the machine executes, so a
 * start still meets the scope constraints and a stop verdict still meets the honesty rule.
 * `set-posture` and `interrupt` act at once (the session rejects a posture above its ceiling,
 * loudly); `list-backends` answers from the listing neo already fetched.
 */
import type { AgentTool, ToolResult } from '../agent/index.js';
import type { Effort } from '../definitions/index.js';
import { EFFORTS, POSTURES } from '../posture/index.js';
import { OPS, parseOpInput, type BackendListing, type CodeSessionInput, type StopOutcome } from '../session/index.js';
import { NeoError } from '../util/errors.js';
import { defined } from '../util/defined.js';

/** What the machine is waiting for, and so which decision op the model may use now. */
export type DecisionMode = 'select' | 'decide' | 'judge' | 'verify';

const DECISION_OPS: Record<DecisionMode, readonly CodeSessionInput['op'][]> = {
  select: ['start'],
  decide: ['answer'],
  judge: ['guide', 'stop'],
  verify: ['stop'],
};

/** A decision the model made with the tool. */
export type ToolDecision =
  | { op: 'start'; input: Extract<CodeSessionInput, { op: 'start' }> }
  | { op: 'answer'; allow: boolean; reason?: string; note?: string }
  | { op: 'guide'; text: string; agentModel?: string; effort?: Effort }
  | { op: 'stop'; outcome: StopOutcome; note?: string };

/** Side ops that act immediately on the live session. */
export interface SideOps {
  setPosture(posture: string): Promise<unknown>;
  interrupt(): Promise<unknown>;
}

/** The tool's state between machine steps. */
export class OpToolState {
  mode: DecisionMode = 'select';
  sessionId: string | undefined;
  clarificationId: string | undefined;
  listing: BackendListing[] = [];
  /** The scope's backend pin: a start may leave `backend` out only when there is one. */
  pin: string | undefined;
  decision: ToolDecision | undefined;
  side: SideOps | undefined;

  /** Enters a decision point: the next decision is recorded afresh. */
  expect(mode: DecisionMode, at: { sessionId?: string; clarificationId?: string } = {}): void {
    this.mode = mode;
    this.sessionId = at.sessionId ?? this.sessionId;
    this.clarificationId = at.clarificationId;
    this.decision = undefined;
  }
}

const INPUT_SCHEMA = {
  type: 'object',
  required: ['op'],
  properties: {
    op: { type: 'string', enum: [...OPS], description: 'The operation.' },
    brief: { type: 'string', description: 'start: the turn-1 brief, shaped for the chosen backend.' },
    backend: { type: 'string', description: 'start: the backend id from list-backends.' },
    agentModel: {
      type: 'string',
      description: 'start/guide: a concrete model id or a class: cheap, standard, frontier.',
    },
    effort: {
      type: 'string',
      enum: [...EFFORTS],
      description: "start/guide: reasoning effort, only one the backend's effortSupport lists.",
    },
    maxPosture: {
      type: 'string',
      enum: [...POSTURES],
      description: 'start: the session ceiling (never above your limit).',
    },
    initialPosture: {
      type: 'string',
      enum: [...POSTURES],
      description: 'start: the posture to begin in.',
    },
    maxRounds: { type: 'integer', minimum: 1, description: 'start: most turns for the session.' },
    allowedTools: {
      type: 'array',
      items: { type: 'string' },
      description: 'start: limit the agent to these tools (only where honorsAllowedTools is true).',
    },
    appendSystemPrompt: { type: 'string', description: "start: text appended to the agent's system prompt." },
    taskTags: {
      type: 'array',
      items: { type: 'string' },
      description: 'start: two to four short tags for the kind of work.',
    },
    sessionId: { type: 'string', description: 'The session id start returned.' },
    clarificationId: { type: 'string', description: 'answer: the clarification being answered.' },
    allow: { type: 'boolean', description: 'answer: allow or deny.' },
    reason: { type: 'string', description: 'answer: the reason the agent sees (required in spirit for a deny).' },
    note: { type: 'string', description: 'answer/stop: a note for the record.' },
    text: { type: 'string', description: 'guide: the next instruction for the agent.' },
    posture: {
      type: 'string',
      enum: [...POSTURES],
      description: 'set-posture: the new posture (never above the ceiling).',
    },
    outcome: {
      type: 'string',
      enum: ['success', 'partial', 'failed', 'aborted'],
      description: 'stop: your honest verdict.',
    },
  },
} as const;

/** Builds the tool over `state`. */
export function codeSessionTool(state: OpToolState): AgentTool {
  return {
    spec: {
      name: 'code-session',
      description:
        'Operate one coding-agent session. Decision ops: start (open it), answer (a permission ask), guide (next instruction), stop (end it with your verdict). ' +
        'Also: set-posture, interrupt, list-backends. neo runs read-turn for you and sends each result as your next message; make exactly one decision per message, then end your turn. ' +
        'sessionId and clarificationId default to the session you drive and the question pending now.',
      inputSchema: INPUT_SCHEMA as unknown as Record<string, unknown>,
    },
    effect: 'read',
    async run(input): Promise<ToolResult> {
      try {
        return await handle(state, input);
      } catch (error) {
        return { output: errorLine(error), isError: true };
      }
    },
  };
}

async function handle(state: OpToolState, given: Record<string, unknown>): Promise<ToolResult> {
  const input = parseOpInput(withDefaults(state, given));
  const allowed = DECISION_OPS[state.mode];
  switch (input.op) {
    case 'list-backends':
      return ok(JSON.stringify({ backends: state.listing }));
    case 'read-turn':
      return fail('neo reads turns for you: the result of each read-turn arrives as your next message');
    case 'set-posture':
    case 'interrupt': {
      if (state.side === undefined || state.sessionId === undefined)
        return fail(`${input.op} needs a live session; start one first`);
      if (input.sessionId !== state.sessionId)
        return fail(`unknown sessionId \`${input.sessionId}\`; the live session is \`${state.sessionId}\``);
      const result =
        input.op === 'set-posture' ? await state.side.setPosture(input.posture) : await state.side.interrupt();
      return ok(JSON.stringify(result));
    }
    default:
      break;
  }
  if (!allowed.includes(input.op))
    return fail(`op ${input.op} is not a decision you can make now; expected: ${allowed.join(' or ')}`);
  if (state.decision !== undefined)
    return fail(`you already decided (${state.decision.op}) for this message; end your turn`);
  switch (input.op) {
    case 'start':
      if (
        input.cwd !== undefined ||
        input.backendOptions !== undefined ||
        input.resumeSessionId !== undefined ||
        input.mcpServers !== undefined
      ) {
        return fail('cwd, backendOptions, resumeSessionId and mcpServers are set by neo; leave them out');
      }
      if (input.backend === undefined && state.pin === undefined)
        return fail('name the backend to start (an id from list-backends)');
      state.decision = { op: 'start', input };
      return ok(
        `recorded: start on ${input.backend ?? 'the pinned backend'}. neo opens the session and sends the result as your next message; end your turn now.`,
      );
    case 'answer':
      if (input.sessionId !== state.sessionId || input.clarificationId !== state.clarificationId) {
        return fail(`answer session \`${state.sessionId}\`, clarification \`${state.clarificationId}\``);
      }
      state.decision = {
        op: 'answer',
        allow: input.allow,
        ...defined({ reason: input.reason, note: input.note }),
      };
      return ok(`recorded: ${input.allow ? 'allow' : 'deny'}. End your turn now.`);
    case 'guide':
      if (input.sessionId !== state.sessionId)
        return fail(`unknown sessionId \`${input.sessionId}\`; the live session is \`${state.sessionId}\``);
      state.decision = {
        op: 'guide',
        text: input.text,
        ...defined({ agentModel: input.agentModel, effort: input.effort }),
      };
      return ok('recorded: guidance. neo sends it and reads the next turn; end your turn now.');
    case 'stop':
      if (input.sessionId !== state.sessionId)
        return fail(`unknown sessionId \`${input.sessionId}\`; the live session is \`${state.sessionId}\``);
      if (input.outcome === undefined) return fail('stop needs an outcome: success, partial, failed or aborted');
      state.decision = {
        op: 'stop',
        outcome: input.outcome,
        ...defined({ note: input.note }),
      };
      return ok(
        'recorded: stop. neo checks the verdict against the verify result and stops the session; end your turn now.',
      );
    default:
      return fail(`op ${(input as { op: string }).op} is not available`);
  }
}

/** The ids a model may leave out: the session it drives and the question pending now. */
function withDefaults(state: OpToolState, given: Record<string, unknown>): Record<string, unknown> {
  const op = given.op;
  const out = { ...given };
  if (
    state.sessionId !== undefined &&
    out.sessionId === undefined &&
    (op === 'answer' ||
      op === 'guide' ||
      op === 'stop' ||
      op === 'set-posture' ||
      op === 'interrupt' ||
      op === 'read-turn')
  )
    out.sessionId = state.sessionId;
  if (op === 'answer' && out.clarificationId === undefined && state.clarificationId !== undefined)
    out.clarificationId = state.clarificationId;
  return out;
}

const ok = (output: string): ToolResult => ({ output, isError: false });
const fail = (output: string): ToolResult => ({ output, isError: true });

function errorLine(error: unknown): string {
  if (error instanceof NeoError) return `${error.code}: ${error.message}${error.hint ? ` (${error.hint})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
