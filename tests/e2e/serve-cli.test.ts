import { execa, type ResultPromise } from 'execa';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isSameProcess } from '../../engine/execution/index.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const servers: ResultPromise[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.kill('SIGTERM');
    await server.catch(() => undefined);
  }
});

/** Starts the built `neo serve` and reads the one URL it prints. */
async function serve(home: string, args: string[] = []) {
  const child = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0', ...args], {
    env: { NEO_HOME: home, NO_COLOR: '1' },
    reject: false,
    buffer: false,
  });
  servers.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    void child.then((r) => reject(new Error(`neo serve exited ${r.exitCode}`)));
  });
  const origin = url.slice(0, url.indexOf('/#token='));
  const token = url.slice(url.indexOf('#token=') + 7);
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${origin}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
    return { status: response.status, body: (await response.json()) as { ok: boolean; data?: any; error?: any } };
  };
  return { child, url, origin, token, api, stderr: () => stderr };
}

describe('neo serve', () => {
  it('prints one URL, hosts `neo session` (one registry), and `neo session daemon --stop` stops it cleanly', async () => {
    const home = await tempDir('neo-e2e-serve-');
    const work = await tempDir('neo-e2e-serve-work-');
    const { child, url, token, api } = await serve(home);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/);
    // The token file is the owner's alone.
    expect((await stat(join(home, 'server.token'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(home, 'server.token'), 'utf8')).trim()).toBe(token);

    const script = join(work, 'script.yaml');
    await writeFile(
      script,
      'turns:\n  - - say: ready\n  - when: { guidanceContains: browser }\n    actions: [{ say: heard the browser }]\n',
    );
    const started = await runNeo(
      ['session', 'start', '--backend', 'script', '--script', script, '--brief', 'b', '--json'],
      {
        cwd: work,
        env: { NEO_HOME: home },
      },
    );
    expect(started.exitCode).toBe(0);
    const id = JSON.parse(started.stdout).sessionId as string;
    const status = await api('/api/status');
    expect(status.body.data.liveSessions).toEqual([id]);
    expect(status.body.data.pid).toBe(child.pid);
    const first = await runNeo(['session', 'read', id, '--json'], { cwd: work, env: { NEO_HOME: home } });
    expect(JSON.parse(first.stdout)).toMatchObject({ kind: 'turn_complete', text: 'ready' });
    expect(
      (
        await api(`/api/code-sessions/${id}/guidance`, {
          method: 'POST',
          body: JSON.stringify({ text: 'from the browser' }),
        })
      ).status,
    ).toBe(200);
    const second = await runNeo(['session', 'read', id, '--json'], { cwd: work, env: { NEO_HOME: home } });
    expect(JSON.parse(second.stdout)).toMatchObject({ kind: 'turn_complete', text: 'heard the browser' });

    // A second server for the same NEO_HOME is refused.
    const again = await runNeo(['serve', '--port', '0'], { env: { NEO_HOME: home }, timeout: 20_000 });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('SERVER_ALREADY_RUNNING');

    const stopped = await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: home } });
    expect(stopped.exitCode).toBe(0);
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(isSameProcess({ pid: child.pid! })).toBe(false);
    const meta = JSON.parse(await readFile(join(home, 'code-sessions', id, 'meta.json'), 'utf8'));
    expect(meta.status).not.toBe('running');
  });

  it('a flow run attaches, streams to the server, and still exits 0 when it is done', async () => {
    const home = await tempDir('neo-e2e-serve-');
    const work = await tempDir('neo-e2e-serve-flow-');
    await writeFile(
      join(work, 'plan.yaml'),
      "name: attached\nsteps:\n  - { id: build, run: 'echo built' }\n  - { id: ship, needs: [build], approval: { prompt: 'Ship?' } }\n",
    );
    const { api } = await serve(home);
    const flow = await runNeo(['flow', 'run', 'plan.yaml', '--yes', '--isolation', 'inplace'], {
      cwd: work,
      env: { NEO_HOME: home },
    });
    expect(flow.stderr).not.toContain('CLI_ABANDONED');
    expect(flow.exitCode).toBe(0);
    const runs = (await api('/api/flows/runs')).body.data.runs as Array<{ runId: string; status: string }>;
    expect(runs.map((r) => r.status)).toEqual(['succeeded']);
    // The server saw the process attach and go.
    expect((await api('/api/status')).body.data.processes).toEqual([]);
  });

  it('refuses a non-loopback host unless told, and then warns', async () => {
    const home = await tempDir('neo-e2e-serve-');
    const refused = await runNeo(['serve', '--host', '0.0.0.0', '--port', '0'], { env: { NEO_HOME: home } });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('CLI_SERVE_REMOTE');
    const { child, stderr } = await serve(home, ['--host', '0.0.0.0', '--allow-remote']);
    await expect.poll(() => stderr()).toContain('warning: listening on 0.0.0.0');
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(130);
  });
});
