/**
 * Capability provisioning through the neo binary: a flow step on (fake) Claude Code gets the
 * MCP config file, the skills plugin (a skill fetched at its commit from a fixture GitHub API on
 * 127.0.0.1) and the instructions, all under the session's folder and gone after release; a T3
 * entry is deferred with its request in `neo serve`'s inbox, approved there, and the next
 * session picks it up.
 */
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_BINARIES, fakeWithEnv, readWireLog } from '../contract/fake-backends.js';
import { NEO_BIN, runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const SHA = 'a'.repeat(40);
const servers: Server[] = [];
const children: ResultPromise[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  for (const child of children.splice(0)) {
    child.kill('SIGTERM');
    await child.catch(() => undefined);
  }
});

/** A fixture of GitHub's Contents API: skills/demo (SKILL.md + refs/a.md) and skills/linked (a symlink). */
async function githubFixture(): Promise<string> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const routes: Record<string, unknown> = {
    'skills/demo': [
      { name: 'SKILL.md', path: 'skills/demo/SKILL.md', type: 'file' },
      { name: 'refs', path: 'skills/demo/refs', type: 'dir' },
    ],
    'skills/demo/SKILL.md': {
      encoding: 'base64',
      content: b64('---\nname: demo\ndescription: a demo skill\n---\nDo it.\n'),
    },
    'skills/demo/refs': [{ name: 'a.md', path: 'skills/demo/refs/a.md', type: 'file' }],
    'skills/demo/refs/a.md': { encoding: 'base64', content: b64('ref\n') },
    'skills/linked': [{ name: 'SKILL.md', path: 'skills/linked/SKILL.md', type: 'symlink' }],
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const match = /^\/repos\/acme\/skills\/contents\/(.+)$/.exec(url.pathname);
    const body = match && url.searchParams.get('ref') === SHA ? routes[decodeURIComponent(match[1]!)] : undefined;
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? { message: 'Not Found' }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

async function project() {
  const root = await tempDir('neo-e2e-provision-');
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(join(home, 'definitions', 'capabilities'), {
    'acme-skills.yaml': `description: acme skills\ntrustTier: T1\nsource: { kind: github, repo: acme/skills, commitSha: ${SHA} }\ndetect: [{ fileExists: acme.toml }]\nprovides: { skills: [skills/demo, skills/linked], instructions: Use the acme skills. }\n`,
    'acme-tool.yaml': `description: a third-party tool\ntrustTier: T3\nsource: { kind: npm, package: acme-tool, version: 1.0.0 }\ndetect: [{ fileExists: acme.toml }]\nprovides: { mcpServers: { acme: { command: node, args: [server.js] } } }\n`,
  });
  await writeTree(repo, {
    'acme.toml': '',
    'plan.yaml':
      'name: cap\ndefaults: { backend: claude-code, maxPosture: acceptEdits }\nsteps:\n  - id: work\n    brief: Create hello.txt with a greeting.\n',
  });
  await git(repo, 'init', '-q', '-b', 'main');
  await git(repo, 'add', '-A');
  await git(repo, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init');
  return { root, home, repo };
}

function sessionRecords(home: string): Array<Record<string, any>> {
  const dir = join(home, 'code-sessions');
  return readdirSync(dir)
    .filter((n) => n.startsWith('cs_'))
    .map((n) => JSON.parse(readFileSync(join(dir, n, 'meta.json'), 'utf8')) as Record<string, any>);
}

describe('capability provisioning', () => {
  it('hands Claude Code an MCP config file, a skills plugin and instructions under the session folder, removed at release', async () => {
    const { root, home, repo } = await project();
    const github = await githubFixture();
    const log = join(root, 'wire.jsonl');
    // neo's memory server is handed over once the repository has a memory.
    const indexed = await runNeo(['memory', 'index'], { cwd: repo, env: { NEO_HOME: home } });
    expect(indexed.exitCode, indexed.stderr).toBe(0);
    const result = await runNeo(['flow', 'run', 'plan.yaml', '--json'], {
      cwd: repo,
      env: {
        NEO_HOME: home,
        NEO_GITHUB_API_URL: github,
        NEO_CLAUDE_CODE_BIN: fakeWithEnv(
          FAKE_BINARIES['claude-code'],
          { FAKE_CLI_HOME: join(root, 'fake'), FAKE_CLI_LOG: log },
          root,
        ),
      },
    });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const [record] = sessionRecords(home);
    const provisionDir = join(home, 'code-sessions', record!.sessionId, 'provision');
    const argv = readWireLog(log).find((r) => r.dir === 'argv')!.argv!;
    expect(argv[argv.indexOf('--mcp-config') + 1]).toBe(join(provisionDir, 'mcp.json'));
    expect(argv[argv.indexOf('--plugin-dir') + 1]).toBe(join(provisionDir, 'claude-plugin'));
    expect(argv[argv.indexOf('--append-system-prompt') + 1]).toMatch(/## acme-skills\n\nUse the acme skills\./);
    // Gone with the session; never in the repository.
    expect(existsSync(provisionDir)).toBe(false);
    expect(readdirSync(repo).sort()).toEqual(['.git', 'acme.toml', 'plan.yaml']);
    // The skill is cached by commit, the symlink refused.
    expect(
      readFileSync(join(home, 'capabilities', 'skills', 'acme__skills', SHA, 'skills__demo', 'refs', 'a.md'), 'utf8'),
    ).toBe('ref\n');
    const p = record!.provision;
    expect(p.applied).toEqual(
      expect.arrayContaining([
        'neo-memory:mcp:neo-memory',
        'acme-skills:skill:skills/demo',
        'acme-skills:instructions',
      ]),
    );
    expect(p.ignored).toContainEqual({
      capability: 'acme-skills',
      item: 'skill:skills/linked',
      reason: expect.stringMatching(/is a symlink: a skill holds plain files and folders only/),
    });
    expect(p.awaitingApproval).toEqual(['acme-tool']);
    expect(p.tiers).toMatchObject({ 'acme-tool': 'T3', 'acme-skills': 'T1', 'neo-memory': 'T0' });

    const shown = await runNeo(['sessions', 'show', record!.sessionId], {
      cwd: repo,
      env: { NEO_HOME: home, NO_COLOR: '1' },
    });
    expect(shown.stdout).toMatch(/ {2}awaiting {2}acme-tool \(approval requested/);
    expect(shown.stdout).toMatch(/ {2}ignored {3}acme-skills:skill:skills\/linked — not fetched/);

    const dry = await runNeo(['flow', 'run', 'plan.yaml', '--dry-run', '--json'], {
      cwd: repo,
      env: { NEO_HOME: home },
    });
    expect(JSON.parse(dry.stdout).capabilities.work).toMatchObject({ awaitingApproval: ['acme-tool'] });
  });

  it('a T3 entry is deferred, its request in the inbox; approved there, the next session takes it', async () => {
    const { root, home, repo } = await project();
    const script = join(root, 'script.yaml');
    await writeFile(script, 'turns:\n  - - say: ready\n');
    const serve = execa(process.execPath, [NEO_BIN, 'serve', '--port', '0'], {
      env: { NEO_HOME: home, NO_COLOR: '1', NEO_CAPABILITY_REFRESH: 'off' },
      reject: false,
      buffer: false,
    });
    children.push(serve);
    const url = await new Promise<string>((resolve) => {
      let out = '';
      serve.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
    });
    const origin = url.slice(0, url.indexOf('/#token='));
    const token = url.slice(url.indexOf('#token=') + 7);
    const api = async (path: string, body?: unknown) =>
      (await (
        await fetch(`${origin}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).json()) as { ok: boolean; data: any; error?: any };
    const env = { NEO_HOME: home };
    const start = async () => {
      const started = await runNeo(
        ['session', 'start', '--backend', 'script', '--script', script, '--brief', 'b', '--json'],
        { cwd: repo, env },
      );
      expect(started.exitCode, started.stderr).toBe(0);
      const id = JSON.parse(started.stdout).sessionId as string;
      const shown = JSON.parse((await runNeo(['sessions', 'show', id, '--json'], { cwd: repo, env })).stdout);
      await runNeo(['session', 'stop', id], { cwd: repo, env });
      return (shown.record ?? shown).provision as Record<string, any>;
    };
    const first = await start();
    expect(first.awaitingApproval).toEqual(['acme-tool']);
    const inbox = await api('/api/approvals');
    expect(inbox.data.items).toContainEqual(
      expect.objectContaining({ kind: 'capability', runId: 'capabilities', key: 'acme-tool', live: false }),
    );
    expect((await api('/api/approvals/capabilities/acme-tool', { decision: 'approve' })).data).toMatchObject({
      decision: 'approve',
    });
    expect((await api('/api/approvals')).data.items.filter((i: any) => i.kind === 'capability')).toEqual([]);
    const second = await start();
    expect(second.awaitingApproval).toEqual([]);
    // Picked up: in this session's plan (the script backend then says why it runs no MCP server).
    expect(second.ignored).toContainEqual({
      capability: 'acme-tool',
      item: 'mcp:acme',
      reason: 'the script backend replays its script: it runs no MCP server, skill or instructions',
    });
  });
});
