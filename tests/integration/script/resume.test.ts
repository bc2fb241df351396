import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { createTransport, supportedProtocols } from '../../../engine/transports/index.js';
import { PROGRESS_FILE } from '../../../engine/transports/script/index.js';
import { SCRIPT_DESCRIPTOR, startScript, writeScript } from '../../helpers/script.js';
import { tempDir } from '../../helpers/temp.js';

let home: string;
beforeEach(async () => {
  home = await tempDir('neo-home-');
  process.env.NEO_HOME = home;
});

const THREE_TURNS = {
  turns: [
    [{ write: { path: 'log.txt', content: 'one\n' } }, { say: 'one' }],
    [{ edit: { path: 'log.txt', search: 'one', replace: 'two' } }, { say: 'two' }],
    [{ say: 'three' }],
  ],
};

async function sessionDir(id: string): Promise<string> {
  const dir = join(home, 'code-sessions', id);
  await mkdir(dir, { recursive: true });
  return dir;
}

describe('resume by externalSessionId', () => {
  test('a new session continues at the turn after the last completed one', async () => {
    const cwd = await tempDir();
    const script = await writeScript(await tempDir(), THREE_TURNS);
    const first = await startScript({ cwd, script, sessionId: 'cs_first', sessionDir: await sessionDir('cs_first') });
    const started = await first.reader.next();
    expect(started).toMatchObject({ type: 'started', model: 'script' });
    const externalSessionId = (started as { externalSessionId: string }).externalSessionId;
    expect(externalSessionId).toMatch(/^script-[0-9a-f]{16}$/);
    await first.reader.until('turn_complete');
    await first.session.stop();
    const saved = JSON.parse(await readFile(join(home, 'code-sessions', 'cs_first', PROGRESS_FILE), 'utf8'));
    expect(saved).toMatchObject({ version: 1, externalSessionId, nextTurn: 1, turnsPlayed: 1, scriptFile: script });

    const second = await startScript({
      cwd,
      script,
      sessionId: 'cs_second',
      sessionDir: await sessionDir('cs_second'),
      resumeSessionId: externalSessionId,
      brief: 'carry on',
    });
    expect(await second.reader.next()).toEqual({ type: 'started', externalSessionId, model: 'script' });
    const turn = await second.reader.until('turn_complete');
    expect(turn.at(-1)).toEqual({ type: 'turn_complete', numTurns: 2, text: 'two' });
    expect(turn[0]).toMatchObject({ type: 'tool_use', id: 't2.0', name: 'edit' });
    expect(await readFile(join(cwd, 'log.txt'), 'utf8')).toBe('two\n');
    await second.session.stop();

    // Resuming again finds the newest progress (the second session's) and plays turn 3.
    const third = await startScript({
      cwd,
      script,
      sessionId: 'cs_third',
      sessionDir: await sessionDir('cs_third'),
      resumeSessionId: externalSessionId,
    });
    expect((await third.reader.until('turn_complete')).at(-1)).toEqual({
      type: 'turn_complete',
      numTurns: 3,
      text: 'three',
    });
    await third.session.stop();
  });

  test('a turn cut short by stop is played again on resume; adoption reuses the same folder', async () => {
    const cwd = await tempDir();
    const script = await writeScript(await tempDir(), {
      turns: [[{ say: 'one' }], [{ say: 'two starts' }, { hang: null }], [{ say: 'three' }]],
    });
    const dir = await sessionDir('cs_adopted');
    const first = await startScript({ cwd, script, sessionId: 'cs_adopted', sessionDir: dir });
    const externalSessionId = ((await first.reader.next()) as { externalSessionId: string }).externalSessionId;
    await first.reader.until('turn_complete');
    await first.session.sendGuidance('go on');
    expect(await first.reader.next()).toEqual({ type: 'text', text: 'two starts' });
    await first.session.stop();

    const again = await startScript({
      cwd,
      script,
      sessionId: 'cs_adopted',
      sessionDir: dir,
      resumeSessionId: externalSessionId,
    });
    expect((await again.reader.until('text')).at(-1)).toEqual({ type: 'text', text: 'two starts' });
    await again.session.interrupt();
    expect(await again.reader.next()).toEqual({ type: 'turn_complete', numTurns: 2, interrupted: true });
    await again.session.stop();
  });

  test('without a session folder, a resume in the same process still works', async () => {
    const cwd = await tempDir();
    const first = await startScript({ cwd, script: THREE_TURNS, sessionId: 'cs_memory' });
    const externalSessionId = ((await first.reader.next()) as { externalSessionId: string }).externalSessionId;
    await first.reader.until('turn_complete');
    await first.session.stop();
    const second = await startScript({
      cwd,
      script: THREE_TURNS,
      sessionId: 'cs_memory2',
      resumeSessionId: externalSessionId,
    });
    expect((await second.reader.until('turn_complete')).at(-1)).toMatchObject({ numTurns: 2, text: 'two' });
    await second.session.stop();
  });

  test('an unknown id and a changed script are rejected loudly', async () => {
    const cwd = await tempDir();
    await expect(
      startScript({ cwd, script: THREE_TURNS, sessionDir: await sessionDir('cs_x'), resumeSessionId: 'script-0000' }),
    ).rejects.toMatchObject({ code: 'TRANSPORT_SCRIPT_RESUME_UNKNOWN' });
    const first = await startScript({
      cwd,
      script: THREE_TURNS,
      sessionId: 'cs_changed',
      sessionDir: await sessionDir('cs_changed'),
    });
    const externalSessionId = ((await first.reader.next()) as { externalSessionId: string }).externalSessionId;
    await first.session.stop();
    const changed = { turns: [...THREE_TURNS.turns, [{ say: 'four' }]] };
    await expect(
      startScript({ cwd, script: changed, sessionDir: await sessionDir('cs_y'), resumeSessionId: externalSessionId }),
    ).rejects.toMatchObject({ code: 'TRANSPORT_SCRIPT_RESUME_MISMATCH' });
  });
});

describe('started', () => {
  test('the external id is stable per neo session and script; the script may set it and the model', async () => {
    const cwd = await tempDir();
    const ids: string[] = [];
    for (const sessionId of ['cs_a', 'cs_a', 'cs_b']) {
      const { session, reader } = await startScript({ cwd, script: { turns: [[]] }, sessionId });
      ids.push(((await reader.next()) as { externalSessionId: string }).externalSessionId);
      await session.stop();
    }
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    const own = await startScript({ cwd, script: { model: 'claude-x', externalSessionId: 'replay-7', turns: [[]] } });
    expect(await own.reader.next()).toEqual({ type: 'started', externalSessionId: 'replay-7', model: 'claude-x' });
    await own.session.stop();
  });
});

describe('start errors', () => {
  test('a bad script file is TRANSPORT_SCRIPT_INVALID with positioned diagnostics', async () => {
    const dir = await tempDir();
    const file = join(dir, 'bad.yaml');
    await writeFile(file, 'turns:\n  - - say: hi\n    - run: { command: [] }\n');
    const error = await startScript({ cwd: dir, script: file }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TRANSPORT_SCRIPT_INVALID' });
    const diagnostics = (
      error as {
        diagnostics: Array<{
          code: string;
          message: string;
          span: { file: string; start: { line: number; column: number } };
        }>;
      }
    ).diagnostics;
    expect(
      diagnostics.map((d) => `${d.span.file}:${d.span.start.line}:${d.span.start.column} ${d.code} ${d.message}`),
    ).toEqual([`${file}:3:23 DEF_SCHEMA \`turns[0][1].run.command\` must not be empty`]);
  });

  test('no script, or a missing file', async () => {
    const cwd = await tempDir();
    const transport = (await import('../../../engine/transports/script/index.js')).createScriptTransport({
      id: 'script',
    } as never);
    await expect(
      transport.start({ sessionId: 'cs_n', cwd, brief: 'b', posture: 'full', descriptor: SCRIPT_DESCRIPTOR }),
    ).rejects.toMatchObject({ code: 'TRANSPORT_SCRIPT_MISSING' });
    await expect(startScript({ cwd, script: join(cwd, 'nope.yaml') })).rejects.toMatchObject({
      code: 'TRANSPORT_SCRIPT_NOT_FOUND',
    });
  });

  test('a relative script path resolves against the session cwd', async () => {
    const cwd = await tempDir();
    await writeScript(cwd, { turns: [[{ say: 'relative' }]] }, 'rel.yaml');
    const transport = (await import('../../../engine/transports/script/index.js')).createScriptTransport({
      id: 'script',
    } as never);
    const session = await transport.start({
      sessionId: 'cs_r',
      cwd,
      brief: 'b',
      posture: 'full',
      descriptor: SCRIPT_DESCRIPTOR,
      options: { script: 'rel.yaml' },
    });
    const seen = [];
    for await (const event of session.events) {
      seen.push(event.type);
      if (event.type === 'turn_complete') break;
    }
    expect(seen).toEqual(['started', 'text', 'turn_complete']);
    await session.stop();
  });
});

describe('the protocol table', () => {
  test('the packaged script descriptor gets this transport', async () => {
    const cwd = await tempDir();
    const { set } = await loadDefinitions({ cwd, home });
    const backend = set.get('backend', 'script');
    expect(backend?.data.protocol).toBe('script');
    expect(supportedProtocols()).toContain('script');
    const transport = await createTransport(backend!);
    expect(transport?.id).toBe('script');
    expect(await transport!.probeAvailability()).toMatchObject({ available: true, status: 'ok' });
    const session = await transport!.start({
      sessionId: 'cs_t',
      cwd,
      brief: 'b',
      posture: 'plan',
      descriptor: backend!.data,
      options: { scriptText: 'turns:\n  - - write: {path: a, content: a}\n' },
    });
    const events = [];
    for await (const event of session.events) {
      events.push(event);
      if (event.type === 'turn_complete') break;
    }
    expect(events[3]).toEqual({
      type: 'tool_result',
      id: 't1.0',
      output: 'denied: posture plan forbids file edits (write on a)',
      isError: true,
    });
    await session.stop();
  });
});
