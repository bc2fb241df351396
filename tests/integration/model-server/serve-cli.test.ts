import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseJsonl } from '../../../engine/util/jsonl.js';
import { NEO_BIN, runNeo } from '../../helpers/cli.js';
import { tempDir, writeTree } from '../../helpers/temp.js';
import { PATHS, post, REQUESTS } from './http.js';

/** Starts `neo model serve` and resolves once it printed its first stdout line. */
async function startServe(args: string[], cwd: string, home: string) {
  const child = execa(process.execPath, [NEO_BIN, 'model', 'serve', ...args], {
    cwd,
    env: { NO_COLOR: '1', NEO_HOME: home },
    reject: false,
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!);
    });
    child.once('exit', () => reject(new Error(`neo model serve exited early:\n${stderr}`)));
  });
  return { child, firstLine, stderr: () => stderr };
}

describe('neo model serve (built binary)', () => {
  it('prints the address, serves the script, logs to JSONL and exits 130 on SIGINT', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'script.yaml': 'turns:\n  - text: "Created {{file}}."\n' });
    const serve = await startServe(
      ['--script', 'script.yaml', '--log', 'requests.jsonl', '--var', 'file=hello.txt'],
      dir,
      join(dir, 'home'),
    );
    const match = /^listening (http:\/\/127\.0\.0\.1:(\d+))$/.exec(serve.firstLine);
    expect(match).not.toBeNull();
    const reply = await post(match![1] + PATHS.chat, REQUESTS.chat({ stream: false }), {
      authorization: 'Bearer secret-key',
    });
    expect(JSON.parse(reply.text).choices[0].message.content).toBe('Created hello.txt.');
    serve.child.kill('SIGINT');
    const result = await serve.child;
    expect(result.exitCode).toBe(130);
    expect(serve.stderr()).toContain('#1 POST /v1/chat/completions chat main turn 1 → 200 text "Created hello.txt."');
    expect(serve.stderr()).toContain('neo model serve: SIGINT, stopped after 1 request');
    const { records } = parseJsonl<{ path: string; headers: Record<string, string> }>(
      await readFile(join(dir, 'requests.jsonl'), 'utf8'),
    );
    expect(records.map((r) => [r.path, r.headers.authorization])).toEqual([['/v1/chat/completions', '[redacted]']]);
  });

  it('--json prints one JSON line with url and port', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 's.yaml': 'turns:\n  - text: x\n' });
    const serve = await startServe(['--script', 's.yaml', '--json', '--quiet'], dir, join(dir, 'home'));
    const line = JSON.parse(serve.firstLine) as { url: string; port: number };
    expect(line.url).toBe(`http://127.0.0.1:${line.port}`);
    expect((await fetch(line.url, { method: 'HEAD' })).status).toBe(200);
    serve.child.kill('SIGTERM');
    expect((await serve.child).exitCode).toBe(130);
    expect(serve.stderr()).toBe('');
  });

  it('a bad script exits 2 with file:line:col diagnostics and never listens', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'bad.yaml': 'turns:\n  - txt: hi\n' });
    const result = await runNeo(['model', 'serve', '--script', 'bad.yaml'], {
      cwd: dir,
      env: { NEO_HOME: join(dir, 'home') },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('bad.yaml:2:5: error[DEF_UNKNOWN_KEY]: unknown key `txt` in `turns[0]`');
    expect(result.stderr).toContain('hint: did you mean `text`?');
  });

  it('bad options are usage errors (exit 2)', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 's.yaml': 'turns: []\n' });
    const env = { NEO_HOME: join(dir, 'home') };
    const port = await runNeo(['model', 'serve', '--script', 's.yaml', '--port', 'x'], { cwd: dir, env });
    expect([port.exitCode, port.stderr.trim()]).toEqual([
      2,
      'error[MODEL_BAD_PORT]: --port must be a number from 0 to 65535; got "x"\n  hint: 0 picks a free port',
    ]);
    const host = await runNeo(['model', 'serve', '--script', 's.yaml', '--host', '0.0.0.0'], { cwd: dir, env });
    expect(host.exitCode).toBe(2);
    expect(host.stderr).toContain('error[MODEL_HOST_NOT_LOOPBACK]');
    const missing = await runNeo(['model', 'serve'], { cwd: dir, env });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("required option '--script <file>' not specified");
  });

  it('neo model check validates a script', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'ok.yaml': 'turns:\n  - text: a\n  - text: b\n',
      'bad.yaml': 'turns:\n  - when: { user: { matches: "(" } }\n    text: x\n',
    });
    const env = { NEO_HOME: join(dir, 'home') };
    const ok = await runNeo(['model', 'check', 'ok.yaml'], { cwd: dir, env });
    expect([ok.exitCode, ok.stdout]).toEqual([0, '✓ ok.yaml: 2 turns']);
    const bad = await runNeo(['model', 'check', 'bad.yaml', '--json'], { cwd: dir, env });
    expect(bad.exitCode).toBe(2);
    const diagnostics = JSON.parse(bad.stdout) as Array<{
      code: string;
      span: { start: { line: number; column: number } };
    }>;
    expect(diagnostics.map((d) => [d.code, d.span.start.line, d.span.start.column])).toEqual([
      ['MODEL_SCRIPT_BAD_REGEX', 2, 30],
    ]);
  });
});
