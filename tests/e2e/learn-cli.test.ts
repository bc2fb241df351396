/**
 * The distiller end to end: outcome records in, `neo learn distill` asks neo's own agent (the
 * cheap model class, on the scripted model server), lessons out; a malformed answer and a lesson
 * that is posture advice are dropped and logged; the cursor makes a second pass ask nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../engine/model-server/index.js';
import type { HarnessOutcomeRecord } from '../../engine/learning/index.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function outcome(i: number, over: Partial<HarnessOutcomeRecord> = {}): HarnessOutcomeRecord {
  return {
    version: 1,
    sessionId: `cs_${i}`,
    recordedAt: new Date(Date.UTC(2026, 10, 1, 12, i)).toISOString(),
    scope: 'owner',
    backendId: 'codex',
    model: 'gpt-5.1-codex',
    taskTags: ['bugfix'],
    rounds: 3,
    durationMs: 60_000,
    outcome: i % 2 === 0 ? 'success' : 'failed',
    outcomeSource: 'inferred',
    interventions: { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0, total: 0 },
    ...(i % 2 === 0 ? {} : { failureReason: 'stalled: no agent event for 600s' }),
    ...over,
  };
}

async function home(answers: string[]): Promise<string> {
  server = await startModelServer({
    script: { aux: { detect: 'never' }, turns: answers.map((text) => ({ text })) },
    nonce: 'learn-test',
  });
  const dir = await tempDir('neo-learn-');
  await writeTree(dir, {
    'neo.yaml': stringify({
      agent: { provider: 'scripted', maxRetries: 0 },
      providers: {
        scripted: { api: 'openai-chat', baseUrl: `${server.url}/v1`, models: { cheap: 'tiny-model', standard: 'std' } },
      },
    }),
    'learning/harness-outcomes.jsonl': [0, 1, 2, 3].map((i) => JSON.stringify(outcome(i))).join('\n') + '\n',
  });
  return dir;
}

describe('neo learn', () => {
  it('distils lessons from outcomes with the cheap model, drops what does not fit, and keeps a cursor', async () => {
    const answer = JSON.stringify({
      lessons: [
        {
          text: 'Codex stalls on bug fixes that need a long test run; brief it to run the one failing test.',
          scope: { backend: 'codex' },
        },
        {
          text: 'gpt-5.1-codex needs the failing test named in the brief.',
          scope: { backend: 'codex', model: 'gpt-5.1-codex' },
        },
        { text: 'Switch to full posture so it stops asking.', scope: { backend: 'codex' } },
        { text: 'Skip the tests to finish faster.', scope: { taskTag: 'bugfix' } },
        { text: 'A lesson about a backend that does not exist.', scope: { backend: 'nonesuch' } },
        { text: 'x'.repeat(301), scope: { taskTag: 'bugfix' } },
        { text: 'no scope at all' },
      ],
    });
    const dir = await home([`Here you go:\n${answer}`, 'not json at all']);
    const env = { NEO_HOME: dir };
    const first = await runNeo(['learn', 'distill'], { env, cwd: dir });
    expect(first.stderr).toContain('neo: dropped a proposed lesson: posture or escalation advice');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toBe('4 new outcomes; 2 lessons added, 0 reinforced, 5 dropped, 0 evicted; 2 kept');

    // The model was asked through neo's own agent with the cheap class, the prompt forbidding posture advice.
    const request = server!.requests[0]!.body as { model: string; messages: Array<{ role: string; content: string }> };
    expect(request.model).toBe('tiny-model');
    expect(request.messages[0]!.content).toContain('Never advise about postures');
    expect(request.messages[1]!.content).toContain('backend=codex model=gpt-5.1-codex');

    const listed = await runNeo(['learn', 'lessons', '--json'], { env });
    const { lessons, cursor } = JSON.parse(listed.stdout) as {
      lessons: Array<{ id: string; confidence: number; evidenceCount: number; scope: object; text: string }>;
      cursor: string;
    };
    expect(cursor).toBe(outcome(3).recordedAt);
    expect(lessons.map((l) => [l.confidence, l.evidenceCount, l.scope])).toEqual([
      [0.6, 1, { backendId: 'codex' }],
      [0.6, 1, { backendId: 'codex', model: 'gpt-5.1-codex' }],
    ]);
    const log = await readFile(join(dir, 'learning', 'distill-log.jsonl'), 'utf8');
    const dropped = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.event === 'learn_lesson_dropped');
    expect(dropped.map((l) => [l.level, l.reason])).toEqual([
      ['warn', 'posture or escalation advice'],
      ['warn', 'posture or escalation advice'],
      ['warn', 'unknown backend nonesuch'],
      ['warn', 'longer than 300 characters'],
      ['warn', 'no scope'],
    ]);

    // Nothing new since the cursor: no model call, nothing changes.
    const second = await runNeo(['learn', 'distill'], { env, cwd: dir });
    expect(second.stdout).toBe('0 new outcomes; 0 lessons added, 0 reinforced, 0 dropped, 0 evicted; 2 kept');
    expect(server!.requests).toHaveLength(1);

    // --since re-reads them; a malformed answer is dropped whole and the lessons stay.
    const third = await runNeo(['learn', 'distill', '--since', '2026-11-01T00:00:00Z'], { env, cwd: dir });
    expect(third.exitCode).toBe(0);
    expect(third.stderr).toContain('the answer is not a JSON object with a lessons array');
    expect(third.stdout).toContain('0 lessons added, 0 reinforced, 1 dropped');

    const table = await runNeo(['learn', 'lessons'], { env });
    expect(table.stdout).toMatch(/ID\s+CONFIDENCE\s+EVIDENCE\s+SCOPE\s+LESSON/);
    expect(table.stdout).toContain('codex · gpt-5.1-codex');
    const forgot = await runNeo(['learn', 'forget', lessons[0]!.id], { env });
    expect(forgot.stdout).toBe(`forgot ${lessons[0]!.id}`);
    const after = JSON.parse((await runNeo(['learn', 'lessons', '--json'], { env })).stdout) as { lessons: unknown[] };
    expect(after.lessons).toHaveLength(1);
    const unknown = await runNeo(['learn', 'forget', 'ls_nope'], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('CLI_LESSON_UNKNOWN');
  });

  it('--dry-run prints the lessons and writes nothing', async () => {
    const dir = await home([
      JSON.stringify({ lessons: [{ text: 'Briefs with a file list finish sooner.', scope: { taskTag: 'bugfix' } }] }),
    ]);
    const run = await runNeo(['learn', 'distill', '--dry-run'], { env: { NEO_HOME: dir }, cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('(dry run: nothing written)');
    expect(run.stdout).toContain('0.60  ×1  [tag bugfix] Briefs with a file list finish sooner.');
    await expect(readFile(join(dir, 'learning', 'harness-lessons.json'), 'utf8')).rejects.toThrow();
  });
});
