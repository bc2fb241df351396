import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../engine/transports/index.js';
import { harness, types, type Harness } from '../../fixtures/agent/neo-harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GREET = "export const greeting = 'hello';\n";

describe('the neo backend', () => {
  it('runs a full coding turn that edits a file in a temp repo', async () => {
    h = await harness(
      {
        turns: [
          {
            text: 'Reading the file.',
            tools: [{ name: 'read_file', arguments: { path: 'src/greet.ts' } }],
            usage: { input: 50, output: 5 },
          },
          {
            when: { toolResult: "'hello'" },
            tools: [{ name: 'edit', arguments: { path: 'src/greet.ts', old_string: "'hello'", new_string: "'hi'" } }],
            chunk: 4,
            usage: { input: 60, output: 6 },
          },
          {
            when: { toolResult: 'edited src/greet.ts' },
            tools: [{ name: 'exec', arguments: { command: 'git diff --stat' } }],
            usage: { input: 70, output: 7 },
          },
          { when: { toolResult: 'greet.ts' }, text: 'Changed the greeting to hi.', usage: { input: 80, output: 8 } },
        ],
      },
      { files: { 'src/greet.ts': GREET } },
    );
    await execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.'], { cwd: h.repo });
    await execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init'], { cwd: h.repo });
    const reader = await h.start({ brief: 'Change the greeting to "hi".' });
    const untilAsk = await reader.until('clarify');
    expect(types(untilAsk)).toEqual([
      'started',
      'text',
      'tool_use:read_file',
      'tool_result',
      'tool_use:edit',
      'gate_decision',
      'tool_result',
      'tool_use:exec',
      'clarify:exec',
    ]);
    expect(untilAsk[0]).toEqual({ type: 'started', externalSessionId: 'cs_1', model: 'scripted-model' });
    expect(untilAsk[5]).toMatchObject({
      type: 'gate_decision',
      toolName: 'edit',
      allow: true,
      posture: 'acceptEdits',
      ask: { kind: 'edit', toolName: 'edit', paths: ['src/greet.ts'] },
    });
    expect(untilAsk[6]).toEqual({
      type: 'tool_result',
      id: expect.any(String),
      output: 'edited src/greet.ts: replaced 1 occurrence',
      isError: false,
    });
    const ask = untilAsk[8] as Extract<AgentEvent, { type: 'clarify' }>;
    expect(ask.input).toEqual({ command: 'git diff --stat' });
    expect(ask.ask).toEqual({ kind: 'execute', toolName: 'exec', paths: [], command: 'git diff --stat' });
    await reader.session.answer(ask.clarificationId, { allow: true });
    const rest = await reader.until('turn_complete');
    expect(types(rest)).toEqual(['tool_result', 'text', 'turn_complete']);
    expect((rest[0] as { output: string }).output).toContain('src/greet.ts | 2 +-');
    expect(rest[2]).toEqual({
      type: 'turn_complete',
      numTurns: 4,
      usage: { inputTokens: 260, outputTokens: 26, cachedInputTokens: 0, reasoningTokens: 0 },
      text: 'Changed the greeting to hi.',
    });
    // Each model call's spending came as it happened, and they add up to the turn's.
    expect(
      reader.all.flatMap((e) => (e.type === 'usage' ? [[e.usage?.inputTokens, e.usage?.outputTokens]] : [])),
    ).toEqual([
      [50, 5],
      [60, 6],
      [70, 7],
      [80, 8],
    ]);
    expect(await readFile(join(h.repo, 'src/greet.ts'), 'utf8')).toBe("export const greeting = 'hi';\n");
    // The system prompt names the repo; the request offered neo's tools.
    const first = h.server.requests[0]!;
    expect(first.toolsOffered).toEqual([
      'read_file',
      'write_file',
      'edit',
      'exec',
      'bash_output',
      'kill_shell',
      'grep',
      'glob',
      'workflow',
      'task',
      'restore_context',
    ]);
    expect(JSON.stringify(first.body)).toContain(`Work in the repository at ${h.repo};`);
    // The transcript is saved under the session's store folder.
    const saved = JSON.parse(
      await readFile(join(h.home, 'code-sessions', 'cs_1', 'agent-transcript.json'), 'utf8'),
    ) as { messages: unknown[]; model: string };
    expect(saved.model).toBe('scripted-model');
    expect(saved.messages).toHaveLength(8);
  });

  it('takes guidance for a next turn, with a per-turn model and effort switch', async () => {
    h = await harness({ turns: [{ text: 'first' }, { text: 'second' }] });
    const reader = await h.start();
    await reader.until('turn_complete');
    await reader.session.sendGuidance('now do more', { model: 'bigger-model', effort: 'high' });
    const next = await reader.until('turn_complete');
    expect(types(next)).toEqual(['text', 'turn_complete']);
    const body = h.server.requests[1]!.body as {
      model: string;
      thinking?: unknown;
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(body.model).toBe('bigger-model');
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'now do more' }] });
    expect(h.server.requests[0]!.body).toMatchObject({ model: 'scripted-model' });
  });

  it('rejects an effort the descriptor does not list, and a posture it cannot express', async () => {
    h = await harness({ turns: [{ text: 'first' }] });
    const narrow = {
      ...h.descriptor.data,
      effortSupport: { levels: ['low' as const] },
      postureMap: { plan: { mode: 'plan' }, acceptEdits: { mode: 'acceptEdits' } },
    };
    await expect(h.start({ descriptor: narrow, effort: 'max' })).rejects.toMatchObject({
      code: 'AGENT_EFFORT_UNSUPPORTED',
      message: 'neo does not accept effort max',
    });
    await expect(h.start({ descriptor: narrow, posture: 'full' })).rejects.toMatchObject({
      code: 'TRANSPORT_POSTURE_UNSUPPORTED',
    });
    const reader = await h.start({ descriptor: narrow });
    await reader.until('turn_complete');
    await expect(reader.session.sendGuidance('x', { effort: 'high' })).rejects.toMatchObject({
      code: 'AGENT_EFFORT_UNSUPPORTED',
    });
    await expect(reader.session.setPosture('default')).rejects.toMatchObject({ code: 'TRANSPORT_POSTURE_UNSUPPORTED' });
  });

  it('reports a provider failure as a turn error and stays open for the next turn', async () => {
    h = await harness({ turns: [{ error: { status: 401, message: 'invalid x-api-key' } }, { text: 'recovered' }] });
    const reader = await h.start();
    const failed = await reader.until('error');
    expect(failed.at(-1)).toEqual({
      type: 'error',
      code: 'TRANSPORT_UNAUTHENTICATED',
      message: 'scripted 401 authentication_error: invalid x-api-key (check NEO_TEST_SECRET)',
    });
    await reader.session.sendGuidance('try again');
    expect((await reader.until('turn_complete')).at(-1)).toMatchObject({ type: 'turn_complete', text: 'recovered' });
  });

  it('interrupts a running turn: it completes as interrupted and the session goes on', async () => {
    h = await harness({ turns: [{ text: 'a very slow answer', chunk: 1, pace: '300ms' }, { text: 'next one' }] });
    const reader = await h.start();
    await reader.until('started');
    await h.server.waitForRequest(() => true, 5000);
    await reader.session.interrupt();
    const events = await reader.until('turn_complete');
    expect(events.at(-1)).toMatchObject({ type: 'turn_complete', interrupted: true });
    // Whatever had streamed before the interrupt is kept.
    expect('a very slow answer'.startsWith((events.at(-1) as { text?: string }).text ?? '')).toBe(true);
    await reader.session.sendGuidance('go on');
    expect((await reader.until('turn_complete')).at(-1)).toMatchObject({ text: 'next one' });
  });

  it('resumes from the transcript in the session store', async () => {
    h = await harness({
      turns: [
        { text: 'remembered: the code word is tangerine' },
        { when: { user: 'what was the code word' }, text: 'tangerine' },
      ],
    });
    const first = await h.start({ sessionId: 'cs_first', brief: 'the code word is tangerine' });
    await first.until('turn_complete');
    await first.session.stop();
    const second = await h.start({
      sessionId: 'cs_second',
      resumeSessionId: 'cs_first',
      brief: 'what was the code word?',
    });
    const events = await second.until('turn_complete');
    expect(events[0]).toEqual({ type: 'started', externalSessionId: 'cs_second', model: 'scripted-model' });
    expect(events.at(-1)).toMatchObject({ text: 'tangerine' });
    const body = h.server.requests[1]!.body as { messages: Array<{ role: string; content: Array<{ text: string }> }> };
    expect(body.messages.map((m) => [m.role, m.content[0]!.text])).toEqual([
      ['user', 'the code word is tangerine'],
      ['assistant', 'remembered: the code word is tangerine'],
      ['user', 'what was the code word?'],
    ]);
    const saved = JSON.parse(
      await readFile(join(h.home, 'code-sessions', 'cs_second', 'agent-transcript.json'), 'utf8'),
    ) as { messages: unknown[] };
    expect(saved.messages).toHaveLength(4);
    await expect(h.start({ sessionId: 'cs_third', resumeSessionId: 'cs_missing' })).rejects.toMatchObject({
      code: 'AGENT_RESUME_NOT_FOUND',
    });
  });

  it('reads AGENTS.md from the repo root down to the cwd, and lists skills', async () => {
    h = await harness(
      {
        turns: [
          { tools: [{ name: 'load_skill', arguments: { name: 'release' } }] },
          { when: { toolResult: 'Bump the version' }, text: 'ok' },
        ],
      },
      {
        files: {
          'AGENTS.md': 'Root rule: run npm test.',
          'pkg/AGENTS.md': 'Package rule: no default exports.',
          'pkg/src/.keep': '',
          '.neo/skills/release/SKILL.md':
            '---\nname: release\ndescription: How to cut a release.\n---\nBump the version, tag, push.\n',
        },
      },
    );
    const reader = await h.start({ cwd: join(h.repo, 'pkg', 'src') });
    await reader.until('turn_complete');
    const system = JSON.stringify((h.server.requests[0]!.body as { system: unknown }).system);
    expect(system).toContain(
      '## AGENTS.md\\nRoot rule: run npm test.\\n\\n## pkg/AGENTS.md\\nPackage rule: no default exports.',
    );
    expect(system).toContain('- release: How to cut a release.');
    expect(h.server.requests[0]!.toolsOffered).toContain('load_skill');
  });

  it('reports what of a provisioning plan it applied, and notices a turn cut at maxTurns', async () => {
    h = await harness(
      { turns: [{ tools: [{ name: 'glob', arguments: { pattern: '*' } }], times: 'always' }] },
      { neoYaml: undefined },
    );
    const { writeTree } = await import('../../helpers/temp.js');
    const skills = join(h.home, 'provisioned');
    await writeTree(skills, { 'deploy/SKILL.md': '---\nname: deploy\ndescription: ship it\n---\nsteps\n' });
    const yaml = await readFile(join(h.home, 'neo.yaml'), 'utf8');
    await writeTree(h.home, { 'neo.yaml': yaml.replace('  maxRetries: 0', '  maxRetries: 0\n  maxTurns: 2') });
    const reader = await h.start({
      provision: {
        instructions: 'Use the deploy skill.',
        skillDirs: [skills, join(h.home, 'nothing-here')],
        mcpServers: { github: {} },
      },
    });
    const events = await reader.until('turn_complete');
    expect(events[1]).toEqual({
      type: 'provision',
      applied: ['instructions', 'skill:deploy'],
      ignored: [`skill:${join(h.home, 'nothing-here')}`, 'mcp:github'],
      reasons: {
        [`skill:${join(h.home, 'nothing-here')}`]: 'no skill (a SKILL.md with a name) was found in it',
        'mcp:github': 'a stdio server needs a `command`',
      },
      mcp: [{ server: 'github', status: 'ignored', reason: 'a stdio server needs a `command`' }],
    });
    expect(events.at(-2)).toEqual({
      type: 'error',
      code: 'AGENT_MAX_TURNS',
      transient: true,
      message: 'the turn stopped after 2 model calls (agent.maxTurns); send guidance to continue',
    });
    expect(events.at(-1)).toMatchObject({ type: 'turn_complete', numTurns: 2 });
    expect(JSON.stringify(h.server.requests[0]!.body)).toContain('Use the deploy skill.');
  });

  it('delivers guidance sent mid-turn at the next tool boundary, inside the same turn', async () => {
    h = await harness(
      {
        turns: [
          { tools: [{ name: 'exec', arguments: { command: 'true' } }] },
          { when: { toolResult: '(no output)' }, text: 'switched to npm ci' },
        ],
      },
      { posture: 'default' },
    );
    const reader = await h.start();
    const ask = (await reader.until('clarify')).at(-1) as Extract<AgentEvent, { type: 'clarify' }>;
    await reader.session.sendGuidance('use npm ci');
    await reader.session.answer(ask.clarificationId, { allow: true });
    const events = await reader.until('turn_complete');
    expect(types(events)).toEqual(['tool_result', 'text', 'turn_complete']);
    expect(events.at(-1)).toMatchObject({ numTurns: 2, text: 'switched to npm ci' });
    const body = h.server.requests[1]!.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
    };
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: expect.any(String), content: '(no output)' },
        { type: 'text', text: 'use npm ci' },
      ],
    });
  });
});
