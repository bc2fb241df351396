import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { createSessionService, silentLog, type SessionService } from '../../../engine/session/index.js';
import { runNeo } from '../../helpers/cli.js';
import { writeScript } from '../../helpers/script.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

let home: string;
let env: Record<string, string>;
beforeEach(async () => {
  home = await tempDir('neo-home-');
  env = { NEO_HOME: home };
});

describe('neo script validate', () => {
  test('a good script: one summary line, exit 0', async () => {
    const dir = await tempDir();
    await writeScript(
      dir,
      { turns: [[{ say: 'a' }, { ask: { toolName: 'X', input: {}, onAllow: [{ say: 'b' }] } }], [{ end: null }]] },
      'good.yaml',
    );
    const result = await runNeo(['script', 'validate', 'good.yaml'], { cwd: dir, env });
    expect(result).toEqual({ exitCode: 0, stdout: '✓ good.yaml: 2 turns, 4 actions', stderr: '' });
  });

  test('a bad script: positioned diagnostics with a code frame, exit 2; --json gives the raw list', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.yaml'), 'turns:\n  - - say: hi\n    - run: { command: ls, expectExit: yes }\n');
    const result = await runNeo(['script', 'validate', 'bad.yaml'], { cwd: dir, env });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      [
        'bad.yaml:3:39: error[DEF_WRONG_TYPE]: `turns[0][1].run.expectExit` must be an integer; got a string',
        '  2 |   - - say: hi',
        '> 3 |     - run: { command: ls, expectExit: yes }',
        '    |                                       ^^^',
        '  hint: e.g. 1',
        '',
        '✗ 1 error, 0 warnings',
      ].join('\n'),
    );
    const json = await runNeo(['script', 'validate', '--json', 'bad.yaml'], { cwd: dir, env });
    expect(json.exitCode).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject([
      {
        code: 'DEF_WRONG_TYPE',
        pointer: '/turns/0/1/run/expectExit',
        span: { file: join(dir, 'bad.yaml'), start: { line: 3, column: 39 } },
      },
    ]);
  });

  test('a missing file is a typed error', async () => {
    const dir = await tempDir();
    const result = await runNeo(['script', 'validate', 'nope.yaml'], { cwd: dir, env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/^error\[TRANSPORT_SCRIPT_NOT_FOUND\]: cannot read script .*nope\.yaml: ENOENT/);
  });
});

describe('neo script play', () => {
  test('plays turns with answers and guidance, printing one line per event', async () => {
    const dir = await tempDir();
    const script = await writeScript(await tempDir(), {
      turns: [
        {
          cost: { usd: 0.5, inputTokens: 10, outputTokens: 2 },
          actions: [
            { say: 'hello' },
            { write: { path: 'a.txt', content: 'one\n' } },
            { run: { command: ['cat', 'a.txt'] } },
          ],
        },
        {
          when: { guidanceContains: 'fix' },
          actions: [{ edit: { path: 'a.txt', search: 'one', replace: 'two' } }, { end: { text: 'done' } }],
        },
      ],
    });
    const result = await runNeo(
      [
        'script',
        'play',
        script,
        '--cwd',
        dir,
        '--posture',
        'acceptEdits',
        '--answer',
        'allow',
        '--guide',
        'please fix it',
      ],
      { env },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(1)).toEqual([
      'say      hello',
      'tool     t1.1 write {"path":"a.txt","content":"one\\n"}',
      'result   t1.1 ok: wrote a.txt (4 bytes)',
      'tool     t1.2 run {"command":["cat","a.txt"]}',
      'clarify  clr-t1.2 run',
      'result   t1.2 ok: one',
      '[exit code 0]',
      'turn     1 complete · $0.5 · 10 in · 2 out',
      'tool     t2.0 edit {"path":"a.txt","search":"one","replace":"two"}',
      'result   t2.0 ok: edited a.txt (1 replacement)',
      'ended    ok: done',
    ]);
    expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('two\n');
  });

  test('--json prints the normalized events; a denied write and a failed end exit 1', async () => {
    const dir = await tempDir();
    const script = await writeScript(dir, {
      turns: [[{ write: { path: 'x.txt', content: 'x' } }, { end: { ok: false, text: 'could not' } }]],
    });
    const result = await runNeo(['script', 'play', script, '--posture', 'default', '--json'], { cwd: dir, env });
    expect(result.exitCode).toBe(1);
    const events = result.stdout.split('\n').map((line) => JSON.parse(line) as { type: string });
    expect(events.map((e) => e.type)).toEqual(['started', 'tool_use', 'clarify', 'tool_result', 'ended']);
    expect(events[3]).toEqual({
      type: 'tool_result',
      id: 't1.0',
      output: 'denied by the user: neo script play --answer deny',
      isError: true,
    });
    expect(await readdir(dir)).toEqual(['script.yaml']);
  });

  test('a bad posture is a usage error', async () => {
    const result = await runNeo(['script', 'play', 'x.yaml', '--posture', 'yolo'], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('error[CLI_BAD_POSTURE]: unknown posture `yolo`');
  });
});

/** Drives a session through the session service, answering in order and guiding after each turn. */
async function drive(
  service: SessionService,
  sessionId: string,
  answers: boolean[],
  guidance: string[],
): Promise<string[]> {
  const caller = { scope: 'test' };
  const kinds: string[] = [];
  const queue = [...answers];
  const next = [...guidance];
  for (;;) {
    const result = (await service.execute({ op: 'read-turn', sessionId }, caller)) as {
      kind: string;
      clarificationId?: string;
      turnDiff?: { summaryLine: string };
    };
    kinds.push(
      result.kind === 'clarification' ? 'clarification' : `${result.kind}: ${result.turnDiff?.summaryLine ?? ''}`,
    );
    if (result.kind === 'clarification') {
      await service.execute(
        {
          op: 'answer',
          sessionId,
          clarificationId: result.clarificationId!,
          allow: queue.shift() ?? false,
          reason: 'no',
        },
        caller,
      );
      continue;
    }
    const text = next.shift();
    if (result.kind !== 'turn_complete' || text === undefined) break;
    await service.execute({ op: 'guide', sessionId, text }, caller);
  }
  await service.execute({ op: 'stop', sessionId }, caller);
  return kinds;
}

async function gitRepo(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  await writeTree(dir, files);
  const git = (args: string[]) => execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir });
  await git(['init', '-q']);
  await git(['add', '.']);
  await git(['commit', '-qm', 'init']);
  return dir;
}

async function tree(root: string, dir = root, out: Record<string, string> = {}): Promise<Record<string, string>> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await tree(root, path, out);
    else out[relative(root, path)] = await readFile(path, 'utf8');
  }
  return out;
}

describe('neo script from-session: record once through the session service, replay forever', () => {
  const FILES = { 'src/sum.js': 'return total + 1;\n', 'README.md': '# r\n' };
  const SCRIPT = {
    turns: [
      {
        cost: { usd: 0.03, inputTokens: 900, outputTokens: 80 },
        actions: [
          { say: 'Changing sum.' },
          { write: { path: 'src/extra.js', content: 'x\n' } },
          { run: { command: 'exit 1', expectExit: 1 } },
        ],
      },
      {
        when: { guidanceContains: 'exited 1' },
        actions: [
          { edit: { path: 'src/sum.js', search: 'total + 1', replace: 'total' } },
          { delete: { path: 'README.md' } },
          { say: 'Fixed.' },
        ],
      },
    ],
  };
  const ANSWERS = [true, true, true, false];
  const GUIDANCE = ['verify: npm test exited 1'];

  test('the recorded events become a script that reproduces the same turns and file changes', async () => {
    const { set } = await loadDefinitions({ cwd: home, home });
    const service = createSessionService({ home, definitions: set, log: silentLog });
    const first = await gitRepo(FILES);
    const script = await writeScript(await tempDir(), SCRIPT);
    const started = (await service.execute(
      {
        op: 'start',
        brief: 'make the tests pass',
        backend: 'script',
        cwd: first,
        initialPosture: 'default',
        backendOptions: { script },
      },
      { scope: 'test' },
    )) as { sessionId: string };
    const recordedKinds = await drive(service, started.sessionId, ANSWERS, GUIDANCE);
    await service.close();

    // A torn last line (a crash mid-write) is skipped with a note, never fatal.
    await writeFile(
      join(home, 'code-sessions', started.sessionId, 'events.jsonl'),
      `${await readFile(join(home, 'code-sessions', started.sessionId, 'events.jsonl'), 'utf8')}{"seq":99,"at`,
    );
    const out = join(await tempDir(), 'replay.yaml');
    const made = await runNeo(['script', 'from-session', started.sessionId.slice(0, 12), '-o', out], { env });
    expect(made.exitCode).toBe(0);
    expect(made.stdout).toMatch(/^wrote .*replay\.yaml: 2 turns from \d+ events$/);
    expect(made.stderr).toMatch(
      /^note: .*events\.jsonl:\d+ does not parse \(a torn last line after a crash\?\); skipped$/,
    );
    const text = await readFile(out, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^# yaml-language-server: \$schema=.*schemas\/script\.schema\.json$/);
    expect(text).toContain('# turn 1 — after: make the tests pass');
    expect(text).toContain('# turn 2 — after: verify: npm test exited 1');
    expect((await runNeo(['script', 'validate', out], { env })).exitCode).toBe(0);

    // Printing to stdout gives the same script with an absolute modeline; an unknown id is a usage error.
    const printed = await runNeo(['script', 'from-session', started.sessionId], { env });
    expect(`${printed.stdout}\n`.split('\n').slice(1)).toEqual(text.split('\n').slice(1));
    const unknown = await runNeo(['script', 'from-session', 'cs_nope'], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('error[CLI_SESSION_NOT_FOUND]: no recorded session cs_nope');
    const clobber = await runNeo(['script', 'from-session', started.sessionId, '-o', out], { env });
    expect(clobber.exitCode).toBe(2);
    expect(clobber.stderr).toContain('error[CLI_OUTPUT_EXISTS]');

    // Replay the made script through the session service on a fresh copy of the repository.
    const replayHome = await tempDir('neo-home-');
    const replayService = createSessionService({ home: replayHome, definitions: set, log: silentLog });
    const second = await gitRepo(FILES);
    const replay = (await replayService.execute(
      {
        op: 'start',
        brief: 'make the tests pass',
        backend: 'script',
        cwd: second,
        initialPosture: 'default',
        backendOptions: { script: out },
      },
      { scope: 'test' },
    )) as { sessionId: string };
    const replayedKinds = await drive(replayService, replay.sessionId, ANSWERS, GUIDANCE);
    await replayService.close();

    expect(replayedKinds).toEqual(recordedKinds);
    expect(recordedKinds.filter((k) => k !== 'clarification')).toHaveLength(2);
    expect(await tree(second)).toEqual(await tree(first));
    expect(await tree(second)).toEqual({
      'src/sum.js': 'return total;\n',
      'README.md': '# r\n',
      'src/extra.js': 'x\n',
    });
  }, 240_000); // seven neo processes and two services: generous for a loaded machine, never a timing check

  test('an events.jsonl path works too; an empty one is a failure', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'rec'));
    const lines = [
      { seq: 1, at: 't', event: { type: 'started', model: 'm' } },
      { seq: 2, at: 't', event: { type: 'text', text: 'multi\nline' } },
      { seq: 3, at: 't', event: { type: 'turn_complete', costUsd: 0.1 } },
    ];
    await writeFile(join(dir, 'rec', 'events.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
    const result = await runNeo(['script', 'from-session', 'rec/events.jsonl'], { cwd: dir, env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').slice(1)).toEqual([
      '# Made by `neo script from-session`. Review it before replaying: its commands run as written.',
      '',
      'description: Replays recorded session rec/events.jsonl.',
      'model: m',
      'turns:',
      '  # turn 1',
      '  - actions:',
      '      - say: |-',
      '          multi',
      '          line',
      '    cost: {usd: 0.1}',
    ]);
    await writeFile(join(dir, 'empty.jsonl'), '');
    const empty = await runNeo(['script', 'from-session', join(dir, 'empty.jsonl')], { env });
    expect(empty.exitCode).toBe(1);
    expect(empty.stderr).toContain('error[CLI_SESSION_EMPTY]');
  });
});
