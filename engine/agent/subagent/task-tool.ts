/**
 * The `task` tool (seed 002 tool_task.go, seed 000's chat `agent` tool): the model hands one or
 * more sub-tasks to child agents, each with its own transcript, run in parallel under the
 * supervisor's budgets. Every child's end — its answer or why it stopped — comes back as this
 * tool's result; the children's tokens come back as the result's usage, counted once by the loop.
 */
import type { AgentTool } from '../tool.js';
import { ToolInputError } from '../tool.js';
import { totalUsage, type ChildKind, type ChildOutcome, type ChildSpec, type Supervisor } from './supervisor.js';

export const TASK_TOOL = 'task';
const KINDS: readonly ChildKind[] = ['inspect', 'general'];

/** The task tool of an agent at `depth` (0: the session's own agent). */
export function taskTool(supervisor: Supervisor, depth: number): AgentTool {
  return {
    // Starting a child changes nothing by itself: each of the child's own calls meets the gate.
    effect: 'read',
    spec: {
      name: TASK_TOOL,
      description:
        'Delegates sub-tasks to child agents that run in parallel, each with its own context, and returns what each found. ' +
        'kind "inspect" children can only read (read_file, grep, glob); "general" children have your tools. ' +
        `At most ${supervisor.budgets.maxFanOut} tasks per call; each child has ${supervisor.budgets.maxTurns} model calls.`,
      inputSchema: {
        type: 'object',
        properties: {
          tasks: {
            type: 'array',
            description: 'The sub-tasks, run in parallel.',
            items: {
              type: 'object',
              properties: {
                prompt: { type: 'string', description: 'Everything the child needs to know: it sees nothing else.' },
                kind: { type: 'string', enum: [...KINDS], description: 'inspect (read-only, the default) or general.' },
              },
              required: ['prompt'],
            },
          },
        },
        required: ['tasks'],
      },
    },
    async run(input, context) {
      const specs = parseTasks(input.tasks, supervisor.budgets.maxFanOut);
      const outcomes = await Promise.all(specs.map((spec) => supervisor.run(spec, depth + 1, context.signal)));
      return {
        output: render(specs, outcomes),
        isError: outcomes.every((o) => !o.ok),
        usage: totalUsage(outcomes),
      };
    },
  };
}

function parseTasks(value: unknown, maxFanOut: number): ChildSpec[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ToolInputError('"tasks" must be a non-empty array of {prompt, kind}');
  if (value.length > maxFanOut)
    throw new ToolInputError(
      `fan-out budget: ${value.length} tasks, at most ${maxFanOut} per call (agent.subagents.maxFanOut); split them over several calls`,
    );
  return value.map((item, i) => {
    const task = (item ?? {}) as { prompt?: unknown; kind?: unknown };
    if (typeof task.prompt !== 'string' || task.prompt.trim() === '')
      throw new ToolInputError(`tasks[${i}].prompt is required and must be a non-empty string`);
    const kind = task.kind ?? 'inspect';
    if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind))
      throw new ToolInputError(`tasks[${i}].kind must be inspect or general`);
    return { prompt: task.prompt, kind: kind as ChildKind };
  });
}

function render(specs: readonly ChildSpec[], outcomes: readonly ChildOutcome[]): string {
  return outcomes
    .map((o, i) => {
      const head = `## task ${i + 1} (${specs[i]!.kind})`;
      if (o.ok) return `${head}: done\n${o.text}`;
      return `${head}: stopped — ${o.reason}${o.partialText ? `\npartial answer:\n${o.partialText}` : ''}`;
    })
    .join('\n\n');
}
