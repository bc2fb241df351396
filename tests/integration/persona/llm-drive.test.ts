import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { ModelServer } from '../../../engine/model-server/index.js';
import { readOutcomes, trackRecords } from '../../../engine/learning/index.js';
import { driverConfig, LLM_SCENARIO, serveScript } from '../../fixtures/persona/llm.js';
import { fixerPersona, writeScenario } from '../../fixtures/persona/scenario.js';
import { digest, personaHarness } from './harness.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("an llm persona drives the script backend through neo's own agent", () => {
  test('the same scenario, decided by the model: allow, allow, deny, guide, verified success', async () => {
    server = await serveScript(LLM_SCENARIO);
    const h = await personaHarness({
      agents: {
        fixer: fixerPersona({ decide: 'llm', body: 'You are the fixer. Drive the agent with the code-session tool.' }),
      },
      files: { 'neo.yaml': driverConfig(server) },
    });
    const script = await writeScenario(h.cwd, h.scripts);
    const { result, seen } = await h.run('fixer', { backendOptions: { script } });

    expect(digest(seen)).toEqual([
      'selected script',
      'started script default<=acceptEdits rounds 4',
      'turn clarification',
      'allow write by llm',
      'turn clarification',
      'allow run by llm',
      'turn clarification',
      'deny run by llm',
      'turn turn_complete',
      'check failed',
      'judged guide',
      'turn clarification',
      'allow edit by llm',
      'turn turn_complete',
      'check passed',
      'judged stop success',
      'settled success',
    ]);
    expect(result.verdict).toEqual({ outcome: 'success', note: 'node check.js passes; src/value.txt fixed' });
    expect(await readFile(join(h.cwd, 'src/value.txt'), 'utf8')).toBe('fixed\n');

    // The driver's agent: the persona body is its system prompt, its one tool is code-session,
    // and its first message carries list-backends and the briefingNotes.
    const first = server.requests[0]!;
    const body = first.body as {
      model: string;
      messages: Array<{ role: string; content: unknown }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(body.model).toBe('driver-model');
    expect(body.tools.map((t) => t.function.name)).toEqual(['code-session']);
    expect(body.messages[0]).toEqual({
      role: 'system',
      content: 'You are the fixer. Drive the agent with the code-session tool.',
    });
    const firstText = JSON.stringify(body.messages[1]);
    expect(firstText).toContain('# list-backends');
    expect(firstText).toContain('script: The brief is not interpreted');
    expect(firstText).toContain('verify: `node check.js`');
    // 7 decisions, each a tool call and a closing text.
    expect(server.requests.length).toBe(14);

    const records = await readOutcomes(h.home);
    expect(records).toEqual([
      expect.objectContaining({
        sessionId: result.session!.sessionId,
        persona: 'fixer',
        backendId: 'script',
        model: 'script-model-1',
        taskTags: ['bugfix', 'javascript'],
        rounds: 2,
        costUsd: 0.03,
        outcome: 'success',
        outcomeSource: 'driver',
        interventions: { userGuidance: 0, clarifications: 4, postureEscalations: 0, interrupts: 0, total: 4 },
        driverNote: 'node check.js passes; src/value.txt fixed',
      }),
    ]);
    expect(await trackRecords(h.home).lines('script')).toEqual(['script: 1 run, 100% success, avg 2.0 rounds']);
    expect(h.service.liveSessionIds()).toEqual([]);
  });
});
