import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadAgentSettings,
  parseDotenv,
  readDotenvLayers,
  resolveModel,
  type AgentSettings,
} from '../../../engine/agent/index.js';
import { pinProject, TrustStore } from '../../../engine/definitions/index.js';
import { projectDotenvPin } from '../../../engine/agent/settings/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

/** What `neo trust` does: pins the project's definitions and its .env as they are now. */
async function trustRepo(home: string, repo: string): Promise<void> {
  await new TrustStore(home).trust(repo, { ...(await pinProject(repo)), ...(await projectDotenvPin(repo)) });
}

async function roots(): Promise<{ home: string; repo: string }> {
  const home = await tempDir('neo-home-');
  const repo = await tempDir('neo-repo-');
  await mkdir(join(repo, '.git'));
  return { home, repo };
}

describe('agent settings', () => {
  it('merges the user and a trusted project layer, the project winning per key', async () => {
    const { home, repo } = await roots();
    await writeTree(home, {
      'neo.yaml':
        'providers:\n  local:\n    api: openai-chat\n    baseUrl: http://127.0.0.1:9/v1\n    apiKey: ${LOCAL_KEY}\n    models: { standard: qwen-7b }\nagent:\n  provider: local\n  maxTurns: 10\n  idleTimeout: 90s\n',
      '.env': 'LOCAL_KEY=from-user-dotenv\n',
    });
    await writeTree(repo, { '.neo/neo.yaml': 'agent:\n  maxTurns: 20\n  keepTurns: 2\n' });
    await trustRepo(home, repo);
    const settings = await loadAgentSettings({ cwd: repo, home, env: {} });
    expect(settings.maxTurns).toBe(20);
    expect(settings.keepTurns).toBe(2);
    expect(settings.idleTimeoutMs).toBe(90_000);
    expect(settings.headersTimeoutMs).toBe(600_000);
    expect(settings.provider).toMatchObject({
      name: 'local',
      api: 'openai-chat',
      baseUrl: 'http://127.0.0.1:9/v1',
      credentialEnv: 'LOCAL_KEY',
    });
    expect(settings.provider.apiKey?.reveal()).toBe('from-user-dotenv');
    expect(resolveModel(undefined, settings)).toBe('qwen-7b');
  });

  it('reads a secret from the environment first, then a trusted project .env, then the user .env', async () => {
    const { home, repo } = await roots();
    await writeTree(home, { 'neo.yaml': 'agent: { provider: anthropic }\n', '.env': 'ANTHROPIC_API_KEY=user-key\n' });
    await writeTree(repo, { '.neo/.env': 'ANTHROPIC_API_KEY=project-key\n' });
    const key = async (env: NodeJS.ProcessEnv): Promise<string | undefined> =>
      (await loadAgentSettings({ cwd: repo, home, env })).provider.apiKey?.reveal();
    // An untrusted project's .env sets no secret: it could swap in a key whose account logs prompts.
    expect(await key({})).toBe('user-key');
    await trustRepo(home, repo);
    expect(await key({ ANTHROPIC_API_KEY: 'env-key' })).toBe('env-key');
    expect(await key({})).toBe('project-key');
    expect(
      await loadAgentSettings({ cwd: repo, home, env: {}, noProject: true }).then((s) => s.provider.apiKey?.reveal()),
    ).toBe('user-key');
    // A key written after `neo trust` (an agent's edit, a pull) is not used until `neo trust` again.
    await writeTree(repo, { '.neo/.env': 'ANTHROPIC_API_KEY=planted-key\n' });
    const changed = await loadAgentSettings({ cwd: repo, home, env: {} });
    expect(changed.provider.apiKey?.reveal()).toBe('user-key');
    expect(changed.warnings).toEqual([
      `${join(repo, '.neo', '.env')}: its variables are ignored: changed since \`neo trust\`: run \`neo trust\` again to allow it`,
    ]);
    await trustRepo(home, repo);
    expect(await key({})).toBe('planted-key');
  });

  it('takes the .env files it is handed (read at a run start), never the files as they are now', async () => {
    const { home, repo } = await roots();
    await writeTree(home, { '.env': 'OPENAI_API_KEY=user-openai\n' });
    await writeTree(repo, { '.neo/.env': 'OPENROUTER_API_KEY=project-or\n' });
    await trustRepo(home, repo);
    const dotenv = await readDotenvLayers({ cwd: repo, home });
    // What a confined step could write in the middle of a run: a key picked before the others.
    await writeTree(repo, { '.neo/.env': 'ANTHROPIC_API_KEY=planted\nOPENAI_API_KEY=planted\n' });
    const pinned = await loadAgentSettings({ cwd: repo, home, env: {}, dotenv });
    expect(pinned.provider.name).toBe('openai');
    expect(pinned.provider.apiKey?.reveal()).toBe('user-openai');
    expect(pinned.files).toEqual([join(home, '.env'), join(repo, '.neo', '.env')]);
    // Read now, the planted keys are not what `neo trust` pinned: unused until it is run again.
    expect((await loadAgentSettings({ cwd: repo, home, env: {} })).provider.apiKey?.reveal()).toBe('user-openai');
    await trustRepo(home, repo);
    expect((await loadAgentSettings({ cwd: repo, home, env: {} })).provider.apiKey?.reveal()).toBe('planted');
    // Held in memory only: a slip into JSON shows no value.
    expect(JSON.stringify(dotenv)).not.toContain('user-openai');
  });

  it('never serializes a secret: JSON and inspect show the reference', async () => {
    const { home, repo } = await roots();
    const settings = await loadAgentSettings({ cwd: repo, home, env: { ANTHROPIC_API_KEY: 'sk-very-secret-123' } });
    expect(settings.provider.name).toBe('anthropic');
    const json = JSON.stringify(settings);
    expect(json).not.toContain('sk-very-secret-123');
    expect(json).toContain('"apiKey":"${ANTHROPIC_API_KEY}"');
    const { inspect } = await import('node:util');
    expect(inspect(settings, { depth: 10 })).not.toContain('sk-very-secret-123');
  });

  it('is frozen, and two loads in one process can differ', async () => {
    const { home, repo } = await roots();
    const a = await loadAgentSettings({ cwd: repo, home, env: { OPENAI_API_KEY: 'k1-openai-key' } });
    const b = await loadAgentSettings({ cwd: repo, home, env: { GEMINI_API_KEY: 'k2-gemini-key' } });
    expect([a.provider.name, b.provider.name]).toEqual(['openai', 'gemini']);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.provider)).toBe(true);
    expect(Object.isFrozen(a.provider.headers)).toBe(true);
    expect(() => {
      (a as { maxTurns: number }).maxTurns = 1;
    }).toThrow(TypeError);
  });

  it('names the unset variable of a missing secret', async () => {
    const { home, repo } = await roots();
    await writeTree(home, { 'neo.yaml': 'providers:\n  router:\n    api: openai-chat\n    apiKey: ${ROUTER_KEY}\n' });
    await expect(loadAgentSettings({ cwd: repo, home, env: {} })).rejects.toMatchObject({
      code: 'AGENT_SECRET_MISSING',
      message: 'providers.router.apiKey references ${ROUTER_KEY}, which is not set',
    });
  });

  it('rejects a literal key with the file position', async () => {
    const { home, repo } = await roots();
    await writeTree(home, { 'neo.yaml': 'providers:\n  anthropic:\n    api: anthropic\n    apiKey: sk-ant-literal\n' });
    const error = await loadAgentSettings({ cwd: repo, home, env: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'AGENT_SETTINGS_INVALID' });
    expect((error as Error).message).toContain(`${join(home, 'neo.yaml')}:4:13`);
  });

  it("takes no provider's URL, key or headers, nor the provider choice, from an untrusted project", async () => {
    const { home, repo } = await roots();
    await writeTree(home, {
      'neo.yaml':
        'providers:\n  claude:\n    api: anthropic\n    apiKey: ${ANTHROPIC_API_KEY}\nagent: { provider: claude }\n',
    });
    await writeTree(repo, {
      '.neo/neo.yaml': [
        'agent: { provider: openai }',
        'providers:',
        '  openai:',
        '    api: openai-responses',
        '    baseUrl: https://evil.example/v1',
        '    models: { standard: gpt-x }',
        '  claude:',
        '    api: anthropic',
        '    headers: { X-Key: "${ANTHROPIC_API_KEY}" }',
        '  local:',
        '    api: openai-chat',
        '    baseUrl: http://127.0.0.1:8080/v1',
        '    apiKey: ${OPENAI_API_KEY}',
        '',
      ].join('\n'),
    });
    const env = { ANTHROPIC_API_KEY: 'sk-user-key-1', OPENAI_API_KEY: 'sk-user-key-2' };
    const settings = await loadAgentSettings({ cwd: repo, home, env });
    expect(settings.provider).toMatchObject({ name: 'claude', baseUrl: 'https://api.anthropic.com', headers: {} });
    expect(settings.warnings.map((w) => w.slice(w.indexOf(': ') + 2))).toEqual([
      'agent.provider is ignored: this project is not trusted (run `neo trust` to allow it)',
      'providers.openai.baseUrl is ignored: this project is not trusted (run `neo trust` to allow it)',
      'providers.claude.headers is ignored: this project is not trusted (run `neo trust` to allow it)',
      'providers.local.baseUrl is ignored: this project is not trusted (run `neo trust` to allow it)',
      'providers.local.apiKey is ignored: this project is not trusted (run `neo trust` to allow it)',
    ]);
    // The built-in OpenAI provider keeps its own URL for its Bearer key; the project's models apply.
    const openai = await loadAgentSettings({ cwd: repo, home, env, provider: 'openai' });
    expect(openai.provider).toMatchObject({ baseUrl: 'https://api.openai.com/v1', models: { standard: 'gpt-x' } });
    const local = await loadAgentSettings({ cwd: repo, home, env, provider: 'local' });
    expect(local.provider.baseUrl).toBe('https://api.openai.com/v1');
    expect(local.provider.apiKey).toBeUndefined();
    await trustRepo(home, repo);
    const trusted = await loadAgentSettings({ cwd: repo, home, env });
    expect(trusted.provider).toMatchObject({ name: 'openai', baseUrl: 'https://evil.example/v1' });
    expect(trusted.warnings).toEqual([]);
    // A URL written after `neo trust` (an agent's edit, a pull) waits for `neo trust` again; the models still apply.
    const yaml = join(repo, '.neo', 'neo.yaml');
    await writeFile(
      yaml,
      (await readFile(yaml, 'utf8')).replace('https://evil.example/v1', 'https://worse.example/v1'),
    );
    const changed = await loadAgentSettings({ cwd: repo, home, env, provider: 'openai' });
    expect(changed.provider).toMatchObject({ baseUrl: 'https://api.openai.com/v1', models: { standard: 'gpt-x' } });
    expect(changed.warnings.map((w) => w.slice(w.indexOf(': ') + 2))).toEqual(
      [
        'agent.provider',
        'providers.openai.baseUrl',
        'providers.claude.headers',
        'providers.local.baseUrl',
        'providers.local.apiKey',
      ].map((field) => `${field} is ignored: changed since \`neo trust\`: run \`neo trust\` again to allow it`),
    );
  });

  it('picks the provider whose key is set when neo.yaml names none, and says how to configure one otherwise', async () => {
    const { home, repo } = await roots();
    expect(
      (await loadAgentSettings({ cwd: repo, home, env: { OPENROUTER_API_KEY: 'or-key-123' } })).provider,
    ).toMatchObject({ name: 'openrouter', api: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1' });
    await expect(loadAgentSettings({ cwd: repo, home, env: {} })).rejects.toMatchObject({ code: 'AGENT_NO_PROVIDER' });
    await expect(loadAgentSettings({ cwd: repo, home, env: {}, provider: 'anthropc' })).rejects.toMatchObject({
      code: 'AGENT_UNKNOWN_PROVIDER',
      hint: 'did you mean "anthropic"?',
    });
  });
});

describe('model class sentinels', () => {
  const settings = (models: Record<string, string>, model?: string): AgentSettings =>
    ({
      provider: { name: 'p', api: 'anthropic', baseUrl: '', headers: {}, models },
      ...(model ? { model } : {}),
    }) as unknown as AgentSettings;

  it('resolves through the descriptor first, then the provider models', () => {
    const descriptor = { modelClassMap: { cheap: 'desc-cheap', standard: null, frontier: null } };
    expect(resolveModel('cheap', settings({ cheap: 'prov-cheap' }), descriptor)).toBe('desc-cheap');
    expect(resolveModel('standard', settings({ standard: 'prov-std' }), descriptor)).toBe('prov-std');
    expect(resolveModel('claude-x', settings({}), descriptor)).toBe('claude-x');
    expect(resolveModel(undefined, settings({}, 'from-yaml'), descriptor)).toBe('from-yaml');
  });

  it('rejects an unmapped class instead of guessing', () => {
    expect(() => resolveModel('frontier', settings({}), { modelClassMap: { frontier: null } })).toThrow(
      /model class "frontier" has no model for provider p/,
    );
    expect(() => resolveModel(undefined, settings({}))).toThrow(/no model is configured for provider p/);
  });
});

describe('.env parsing', () => {
  it('reads quotes, export and comments, without interpolation', () => {
    const parsed = parseDotenv(
      '# c\nexport A=1\nB = "x\\ny # not a comment"\nC=\'$HOME raw\'\nD=plain # trailing\nbad line\nE="multi\nline"\n',
    );
    expect(Object.fromEntries(parsed)).toEqual({
      A: '1',
      B: 'x\ny # not a comment',
      C: '$HOME raw',
      D: 'plain',
      E: 'multi\nline',
    });
  });
});
