/**
 * Subagent and pruner benchmark (issue 28). Two figures, each against a baseline measured in the
 * same run, interleaved:
 *
 * - child start: a turn in which the model delegates to one inspect child (the task tool, the
 *   supervisor, a child Agent with its own transcript, whose one model call ends at once) vs the
 *   same turn calling a bare tool that returns a constant. The difference is what starting and
 *   finishing a child costs over a tool call. Goal: ≤ 5 ms. The model is an in-process fake, so
 *   neither side waits on HTTP.
 * - pruner pass: ContextPruner.view over a 200-message transcript (100 read_file calls, 2 KB each)
 *   vs copying the message array (the least any rewrite of the request does). Goal: ≤ 2 ms.
 *
 * Sizes: --reps=400 --messages=200. `npm run bench -- agent-subagents`.
 */
import { performance } from 'node:perf_hooks';
import {
  Agent,
  ContextPruner,
  PRUNER_DEFAULTS,
  SUBAGENT_DEFAULTS,
  Supervisor,
  taskTool,
  emptyUsage,
  type AgentTool,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type Provider,
} from '../engine/agent/index.js';
import { interleave, numberArgs, report } from './harness.js';

const size = numberArgs({ reps: 400, messages: 200 });

/** A model that calls `tool` once with `input`, then ends the turn; a child (no task tool) ends at once. */
function fakeProvider(tool: string, input: unknown): Provider {
  return {
    name: 'fake',
    api: 'anthropic',
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const last = request.messages.at(-1)!;
      const isChild = !request.tools.some((t) => t.name === tool);
      const answered = last.content.some((b) => b.type === 'tool_result');
      if (isChild || answered)
        return {
          content: [{ type: 'text', text: 'done' }],
          stopReason: 'end_turn',
          rawStopReason: 'end_turn',
          usage: emptyUsage(),
        };
      return {
        content: [{ type: 'tool_use', id: `call_${Math.random()}`, name: tool, input }],
        stopReason: 'tool_use',
        rawStopReason: 'tool_use',
        usage: emptyUsage(),
      };
    },
  };
}

const readTool: AgentTool = {
  effect: 'read',
  spec: { name: 'read_file', description: 'read', inputSchema: { type: 'object', properties: {} } },
  run: async () => ({ output: 'content', isError: false }),
};
const bareTool: AgentTool = {
  effect: 'read',
  spec: { name: 'bare', description: 'a constant', inputSchema: { type: 'object', properties: {} } },
  run: async () => ({ output: 'done', isError: false }),
};

const taskProvider = fakeProvider('task', { tasks: [{ prompt: 'look', kind: 'inspect' }] });
const supervisor = new Supervisor({
  budgets: SUBAGENT_DEFAULTS,
  spawn: (request) =>
    new Agent({
      provider: taskProvider,
      model: 'm',
      system: 'child',
      tools: [readTool],
      maxTurns: request.maxTurns,
      deltas: false,
      onEvent: request.onEvent,
    }),
});
const taskTools = [readTool, taskTool(supervisor, 0)];
const bareProvider = fakeProvider('bare', {});
const bareTools = [readTool, bareTool];

async function turn(provider: Provider, tools: AgentTool[]): Promise<number> {
  const agent = new Agent({ provider, model: 'm', system: 'parent', tools, deltas: false });
  const start = performance.now();
  await agent.send('go');
  return performance.now() - start;
}

for (let i = 0; i < 200; i++) {
  await turn(taskProvider, taskTools);
  await turn(bareProvider, bareTools);
}
const child = await interleave(
  size.reps,
  () => turn(taskProvider, taskTools),
  () => turn(bareProvider, bareTools),
);
report({
  name: 'agent turn with one child (task) vs a bare tool call',
  neo: child.neo,
  baseline: child.baseline,
  unit: 'ms',
});
console.log(`child start over a bare tool call: ${(child.neo - child.baseline).toFixed(3)} ms (goal ≤ 5 ms)`);

const transcript: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'read everything' }] }];
for (let i = 0; transcript.length < size.messages; i++) {
  transcript.push({
    role: 'assistant',
    content: [{ type: 'tool_use', id: `r${i}`, name: 'read_file', input: { path: `f${i}.txt` } }],
  });
  transcript.push({
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: `r${i}`,
        name: 'read_file',
        content: `file ${i}\n${'x'.repeat(2048)}`,
        isError: false,
      },
    ],
  });
}
const pruner = new ContextPruner(PRUNER_DEFAULTS);
const timed = (run: () => unknown) => () => {
  const start = performance.now();
  run();
  return performance.now() - start;
};
for (let i = 0; i < 2000; i++) pruner.view(transcript);
const pass = await interleave(
  size.reps,
  timed(() => pruner.view(transcript)),
  timed(() => transcript.map((m) => ({ ...m }))),
);
report({
  name: `pruner pass over ${transcript.length} messages vs copying them`,
  neo: pass.neo,
  baseline: pass.baseline,
  unit: 'ms',
});
console.log(
  `pruner pass: ${pass.neo.toFixed(3)} ms (median of ${size.reps}), ${pruner.lastParked} results parked (goal ≤ 2 ms)`,
);
