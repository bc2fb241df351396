import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const SCRIPT = `
turns:
  - - say: Reading the code.
    - write: { path: notes.md, content: "# Notes\\n" }
    - ask:
        toolName: mcp__web__fetch
        input: { url: "https://example.com/spec" }
        onAllow: [{ say: fetched }]
        onDeny: [{ say: working offline }]
    - say: Turn one done.
  - - edit: { path: "src/with space.txt", search: old, replace: new }
    - say: Edited.
  - - say: never reached
`;

const homes: string[] = [];
afterEach(async () => {
  // Every test's daemon goes away with it.
  while (homes.length > 0) await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: homes.pop()! } });
});

async function setup() {
  const home = await tempDir('neo-e2e-home-');
  homes.push(home);
  const repo = await tempDir('neo-e2e-repo-');
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  await execa('mkdir', ['-p', 'src'], { cwd: repo });
  await writeFile(join(repo, 'src', 'with space.txt'), 'old\n');
  await execa('git', ['add', '-A'], { cwd: repo });
  await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'], { cwd: repo });
  const script = join(repo, '..', `${repo.split('/').pop()}-script.yaml`);
  await writeFile(script, SCRIPT);
  const env = { NEO_HOME: home, NEO_SESSION_DAEMON_IDLE_MS: '1500' };
  const neo = (...args: string[]) => runNeo(args, { cwd: repo, env });
  const json = async (...args: string[]) => {
    const result = await neo(...args, '--json');
    if (result.exitCode !== 0) {
      const log = await readFile(join(home, 'session-daemon.log'), 'utf8').catch(() => '(no daemon log)');
      throw new Error(`neo ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}\ndaemon log:\n${log}`);
    }
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  return { home, repo, script, env, neo, json };
}

describe('neo session (through the daemon)', () => {
  it('drives a script session by hand: clarification, deny with a reason, guide, diff, stop; reads come from the store', async () => {
    const { home, repo, script, neo, json } = await setup();
    const started = await json(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'make notes',
      '--max-rounds',
      '2',
    );
    expect(started).toMatchObject({
      backend: 'script',
      posture: 'acceptEdits',
      maxPosture: 'acceptEdits',
      maxRounds: 2,
    });
    const id = started.sessionId as string;
    expect(id).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);

    const question = await json('session', 'read', id);
    expect(question).toEqual({
      kind: 'clarification',
      clarificationId: expect.any(String),
      toolName: 'mcp__web__fetch',
      input: { url: 'https://example.com/spec' },
      ask: { kind: 'execute', toolName: 'mcp__web__fetch', paths: [] },
    });
    // A second CLI process sees the same pending question: the session lives in the daemon.
    expect(await json('session', 'read', id.slice(0, 12))).toEqual(question);
    expect(
      await json('session', 'answer', id, question.clarificationId as string, '--deny', '--reason', 'no network here'),
    ).toEqual({
      ok: true,
      clarification: {
        clarificationId: question.clarificationId,
        toolName: 'mcp__web__fetch',
        allow: false,
        reason: 'no network here',
      },
    });

    const turn1 = await json('session', 'read', id);
    expect(turn1).toMatchObject({
      kind: 'turn_complete',
      text: 'Turn one done.',
      actions: ['write notes.md', 'mcp__web__fetch https://example.com/spec (failed)'],
      turnDiff: {
        source: 'git',
        files: [{ path: 'notes.md', status: 'A', insertions: 1, deletions: 0 }],
        summaryLine: '1 file changed (1 added), +1 -0',
      },
    });
    expect(turn1.turnDiff).not.toHaveProperty('unifiedDiff');
    expect((turn1.roundHistory as { entries: unknown[] }).entries[0]).toEqual({
      kind: 'clarification',
      round: 1,
      clarificationId: question.clarificationId,
      toolName: 'mcp__web__fetch',
      allow: false,
      reason: 'no network here',
      pinned: true,
    });

    expect(await json('session', 'guide', id, 'now fix the file')).toEqual({ ok: true });
    const turn2 = await json('session', 'read', id, '--diff');
    expect(turn2).toMatchObject({
      kind: 'max_rounds',
      ok: true,
      rounds: 2,
      text: 'Edited.',
      turnDiff: { files: [{ path: 'src/with space.txt', status: 'M', insertions: 1, deletions: 1 }] },
    });
    expect((turn2.turnDiff as { unifiedDiff: string }).unifiedDiff).toContain('+new');

    const posture = await neo('session', 'posture', id, 'full');
    expect(posture.exitCode).toBe(2);
    expect(posture.stderr).toContain('error[SESSION_NOT_ACTIVE]');

    expect(await json('session', 'stop', id, '--outcome', 'success', '--note', 'verified by hand')).toEqual({
      ok: true,
      alreadyStopped: false,
    });
    expect(await json('session', 'stop', id)).toEqual({ ok: true, alreadyStopped: true });
    const unknown = await neo('session', 'stop', 'cs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('error[SESSION_NOT_FOUND]');

    const list = (await json('sessions', 'list')) as unknown as Array<Record<string, unknown>>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      sessionId: id,
      backendId: 'script',
      cwd: repo,
      status: 'ended',
      state: 'released',
      roundsElapsed: 2,
      outcome: 'success',
      note: 'verified by hand',
      taskBrief: 'make notes',
      version: 1,
    });

    const shown = await json('sessions', 'show', id, '--events');
    const events = shown.events as Array<{ seq: number; event: { type: string; source?: string; text?: string } }>;
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.event.type).toBe('created');
    expect(events.at(-1)!.event).toEqual({
      type: 'released',
      reason: 'explicit',
      outcome: 'success',
      note: 'verified by hand',
    });
    expect(events.filter((e) => e.event.type === 'guidance').map((e) => [e.event.source, e.event.text])).toEqual([
      ['deny', 'Your request to use mcp__web__fetch was denied: no network here'],
      ['driver', 'now fix the file'],
    ]);
    const after = await json('sessions', 'show', id, '--after', String(events.length - 2));
    expect((after.events as unknown[]).length).toBe(2);
    expect(await readFile(join(repo, 'src', 'with space.txt'), 'utf8')).toBe('new\n');
    expect(existsSync(join(home, 'code-sessions', id, 'meta.json'))).toBe(true);

    const human = await neo('sessions', 'show', id);
    expect(human.stdout).toContain('verdict   success — verified by hand');
  }, 180_000);

  it('rejects loudly with exit 2: a misspelt posture, a posture above the ceiling, a missing script', async () => {
    const { script, neo, json } = await setup();
    const bad = await neo(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'b',
      '--max-posture',
      'ful',
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      'error[SESSION_BAD_INPUT]: maxPosture: expected one of plan, default, acceptEdits, full, got "ful"',
    );
    expect(bad.stderr).toContain('did you mean `full`?');
    const { sessionId } = (await json(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'b',
      '--max-posture',
      'default',
      '--posture',
      'plan',
    )) as { sessionId: string };
    const above = await neo('session', 'posture', sessionId, 'acceptEdits');
    expect(above.exitCode).toBe(2);
    expect(above.stderr).toContain(
      "error[POSTURE_CEILING_EXCEEDED]: posture `acceptEdits` is above this session's ceiling `default`",
    );
    expect(await json('session', 'posture', sessionId, 'default')).toEqual({ ok: true, posture: 'default' });
    const missing = await neo('session', 'start', '--backend', 'script', '--brief', 'no script');
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('error[TRANSPORT_SCRIPT_MISSING]');
  }, 180_000);

  it('tails a live session from the store until it is released', async () => {
    const { script, env, repo, json } = await setup();
    const { sessionId } = (await json(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'b',
    )) as { sessionId: string };
    const tail = execa(process.execPath, [NEO_BIN, 'sessions', 'tail', sessionId, '--json'], {
      cwd: repo,
      env: { ...env, NO_COLOR: '1' },
      reject: false,
    });
    const seen: string[] = [];
    tail.stdout!.on('data', (chunk: Buffer) => seen.push(...chunk.toString().split('\n').filter(Boolean)));
    // Wait until the tail has printed the clarification, then finish the session.
    while (!seen.some((line) => line.includes('"clarify"'))) await new Promise((resolve) => setTimeout(resolve, 50));
    await json('session', 'stop', sessionId);
    const result = await tail;
    expect(result.exitCode).toBe(0);
    const lines = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number; event: { type: string } });
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(lines[0]!.event.type).toBe('created');
    expect(lines.at(-1)!.event.type).toBe('released');
  }, 180_000);

  it('starts the daemon on demand, reuses it, and sweeps orphans when a new one boots', async () => {
    const { script, neo, json } = await setup();
    const first = (await json('session', 'start', '--backend', 'script', '--script', script, '--brief', 'one')) as {
      sessionId: string;
    };
    const status1 = JSON.parse((await neo('session', 'daemon', '--status')).stdout) as {
      pid: number;
      liveSessions: string[];
    };
    expect(status1.liveSessions).toEqual([first.sessionId]);
    const second = (await json('session', 'start', '--backend', 'script', '--script', script, '--brief', 'two')) as {
      sessionId: string;
    };
    const status2 = JSON.parse((await neo('session', 'daemon', '--status')).stdout) as {
      pid: number;
      liveSessions: string[];
    };
    expect(status2.pid).toBe(status1.pid);
    expect(status2.liveSessions.sort()).toEqual([first.sessionId, second.sessionId].sort());

    // The daemon dies hard: its sessions are orphaned when the next daemon boots.
    process.kill(status1.pid, 'SIGKILL');
    while (existsSync(`/proc/${status1.pid}`)) await new Promise((resolve) => setTimeout(resolve, 20));
    const readDead = await neo('session', 'read', first.sessionId);
    expect(readDead.exitCode).toBe(2);
    // An orphan is called an orphan, never "stopped".
    expect(readDead.stderr).toContain('error[SESSION_ORPHANED]');
    await json('session', 'start', '--backend', 'script', '--script', script, '--brief', 'three');
    const records = (await json('sessions', 'list')) as unknown as Array<{ sessionId: string; status: string }>;
    const statusOf = (id: string) => records.find((r) => r.sessionId === id)!.status;
    expect([statusOf(first.sessionId), statusOf(second.sessionId)]).toEqual(['orphaned', 'orphaned']);
    expect(await json('session', 'stop', first.sessionId)).toEqual({ ok: true, alreadyStopped: true });
  }, 180_000);

  it('exits the daemon after the idle period once no session is live', async () => {
    const { home, script, json, neo } = await setup();
    const { sessionId } = (await json(
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      script,
      '--brief',
      'b',
    )) as { sessionId: string };
    const { pid } = JSON.parse((await neo('session', 'daemon', '--status')).stdout) as { pid: number };
    await json('session', 'stop', sessionId);
    while (existsSync(`/proc/${pid}`)) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(join(home, 'session-daemon.sock'))).toBe(false);
    expect(existsSync(join(home, 'session-daemon.pid'))).toBe(false);
    expect(await readFile(join(home, 'session-daemon.log'), 'utf8')).toContain('code_session_daemon_stopped');
  }, 180_000);

  it('`daemon --stop` returns once every live session is released and persisted', async () => {
    const { home, repo, json, neo } = await setup();
    // The turn's command ignores SIGTERM, so releasing the session takes the kill grace (about a second).
    const stubborn = join(repo, '..', `${repo.split('/').pop()}-stubborn.yaml`);
    await writeFile(stubborn, 'turns:\n  - - run: { command: "trap \'\' TERM; sleep 30" }\n');
    const start = [
      'session',
      'start',
      '--backend',
      'script',
      '--script',
      stubborn,
      '--brief',
      'b',
      '--max-posture',
      'full',
      '--posture',
      'full',
    ];
    const { sessionId } = (await json(...start)) as { sessionId: string };
    const stopped = await neo('session', 'daemon', '--stop');
    expect(stopped.exitCode).toBe(0);
    // No waiting here: the release, the meta record and the daemon's files are already settled.
    const events = (await readFile(join(home, 'code-sessions', sessionId, 'events.jsonl'), 'utf8')).trim().split('\n');
    expect((JSON.parse(events.at(-1)!) as { event: { type: string } }).event.type).toBe('released');
    const meta = JSON.parse(await readFile(join(home, 'code-sessions', sessionId, 'meta.json'), 'utf8')) as {
      status: string;
    };
    expect(meta.status).not.toMatch(/^(running|idle)$/);
    expect(existsSync(join(home, 'session-daemon.sock'))).toBe(false);
    expect(existsSync(join(home, 'session-daemon.pid'))).toBe(false);
  }, 180_000);

  it('lists backends with a live probe', async () => {
    const { json } = await setup();
    const { backends } = (await json('session', 'backends')) as {
      backends: Array<{ id: string; availability: { status: string } }>;
    };
    expect(backends.find((b) => b.id === 'script')!.availability.status).toBe('ok');
  });
});
