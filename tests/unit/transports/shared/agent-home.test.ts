import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../../engine/definitions/index.js';
import { agentEnv } from '../../../../engine/transports/shared/agent-env.js';
import {
  namedVariables,
  prepareAgentHome,
  SEED_MAX_BYTES,
  type ConfigHomeEntry,
} from '../../../../engine/transports/shared/agent-home.js';
import { tempDir, writeTree } from '../../../helpers/temp.js';

const CODEX: ConfigHomeEntry = {
  at: '.codex',
  variable: 'CODEX_HOME',
  seed: ['auth.json', 'config.toml'],
  namesEnv: 'env_key\\s*=\\s*"([A-Za-z_][A-Za-z0-9_]*)"',
};

const descriptor: Backend = {
  description: 'x',
  protocol: 'acp',
  command: { bin: 'agent-x', authEnv: ['AGENT_KEY'] },
  postureMap: { default: { mode: 'default' } },
  clarifySupport: true,
  granularity: 'stream',
  honorsAllowedTools: false,
  costProfile: 'metered',
  modelSelection: 'none',
  configHome: [CODEX, { at: '.config/agent', from: '${XDG_CONFIG_HOME}/agent' }],
  environment: { keep: ['AGENT_BASE_URL'], pin: { AGENT_TRUST_WORKSPACE: 'false' } },
};

describe("a confined CLI's own home", () => {
  it('points HOME, XDG_* and the CLI’s variable into it, seeded with the named files only', async () => {
    const root = await tempDir();
    const user = join(root, 'user');
    await writeTree(user, {
      '.codex/auth.json': '{"token":"t"}',
      '.codex/config.toml': 'model = "x"\nenv_key = "MY_KEY"\n',
      '.codex/history.jsonl': 'what I asked yesterday\n',
      '.codex/hooks.json': '{}',
    });
    const dir = join(root, 'session', 'home');
    const home = await prepareAgentHome(dir, [CODEX], { HOME: user });
    expect(home.env).toEqual({
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, '.config'),
      XDG_DATA_HOME: join(dir, '.local', 'share'),
      XDG_CACHE_HOME: join(dir, '.cache'),
      XDG_STATE_HOME: join(dir, '.local', 'state'),
      CODEX_HOME: join(dir, '.codex'),
    });
    expect(readFileSync(join(dir, '.codex', 'auth.json'), 'utf8')).toBe('{"token":"t"}');
    expect(existsSync(join(dir, '.codex', 'history.jsonl'))).toBe(false);
    expect(existsSync(join(dir, '.codex', 'hooks.json'))).toBe(false);
    expect(lstatSync(join(dir, '.codex', 'auth.json')).mode & 0o777).toBe(0o600);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    // The CLI's own variable names the user's copy when it is set.
    const elsewhere = join(root, 'codex-home');
    await writeTree(elsewhere, { 'auth.json': '{"token":"other"}' });
    await prepareAgentHome(dir, [CODEX], { HOME: user, CODEX_HOME: elsewhere });
    expect(readFileSync(join(dir, '.codex', 'auth.json'), 'utf8')).toBe('{"token":"other"}');
  });

  it('never follows a link: not in the user’s copy, not in what a previous run left in the home', async () => {
    const root = await tempDir();
    const user = join(root, 'user');
    const secret = join(root, 'secret.txt');
    await writeFile(secret, 'not for the agent\n');
    await mkdir(join(user, '.codex'), { recursive: true });
    await symlink(secret, join(user, '.codex', 'auth.json'));
    await writeFile(join(user, '.codex', 'config.toml'), 'x'.repeat(SEED_MAX_BYTES + 1));
    const dir = join(root, 'home');
    await prepareAgentHome(dir, [CODEX], { HOME: user });
    expect(existsSync(join(dir, '.codex', 'auth.json'))).toBe(false);
    expect(existsSync(join(dir, '.codex', 'config.toml'))).toBe(false);

    // A resumed session's home holds what its confined CLI left: a link where a seed goes, a
    // link where the folder goes. Seeding replaces them and writes nothing through them.
    await writeFile(join(user, '.codex', 'config.toml'), 'model = "y"\n');
    const target = join(root, 'target');
    await mkdir(target);
    await symlink(join(target, 'planted'), join(dir, '.codex', 'config.toml'));
    await prepareAgentHome(dir, [CODEX], { HOME: user });
    expect(readFileSync(join(dir, '.codex', 'config.toml'), 'utf8')).toBe('model = "y"\n');
    expect(existsSync(join(target, 'planted'))).toBe(false);
    await rm(join(dir, '.codex'), { recursive: true });
    await symlink(target, join(dir, '.codex'));
    await prepareAgentHome(dir, [CODEX], { HOME: user });
    expect(lstatSync(join(dir, '.codex')).isDirectory()).toBe(true);
    expect(existsSync(join(target, 'config.toml'))).toBe(false);
    await expect(readlink(join(dir, '.codex'))).rejects.toThrow();
  });

  it('a file entry is copied only when its variable is set, and the variable then points at the copy', async () => {
    const root = await tempDir();
    const config = join(root, 'elsewhere', 'opencode.json');
    await writeTree(root, { 'elsewhere/opencode.json': '{"provider":{"x":{"options":{"apiKey":"{env:X_KEY}"}}}}' });
    const entry: ConfigHomeEntry = {
      at: '.config/opencode/from-env.json',
      variable: 'OPENCODE_CONFIG',
      file: true,
      namesEnv: '\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}',
    };
    const dir = join(root, 'home');
    expect((await prepareAgentHome(dir, [entry], { HOME: root })).env.OPENCODE_CONFIG).toBeUndefined();
    const home = await prepareAgentHome(dir, [entry], { HOME: root, OPENCODE_CONFIG: config });
    expect(home.env.OPENCODE_CONFIG).toBe(join(dir, '.config', 'opencode', 'from-env.json'));
    expect(readFileSync(home.env.OPENCODE_CONFIG!, 'utf8')).toContain('{env:X_KEY}');
    expect(await namedVariables([entry], { HOME: root, OPENCODE_CONFIG: config })).toEqual(['X_KEY']);
  });
});

describe("an agent CLI's environment", () => {
  const base = {
    PATH: '/bin',
    HOME: '/home/u',
    LANG: 'C',
    HTTPS_PROXY: 'http://proxy:3128',
    AGENT_KEY: 'its own key',
    AGENT_BASE_URL: 'http://localhost:1',
    MY_KEY: 'named by its config',
    ANTHROPIC_API_KEY: 'another provider',
    GITHUB_TOKEN: 'a CI token',
    DATABASE_URL: 'postgres://secret',
    AGENT_TRUST_WORKSPACE: 'true',
    CODEX_HOME: '/home/u/.codex',
    XDG_CONFIG_HOME: '/home/u/.config',
    NEO_HOME: '/home/u/.neo',
  };

  it('unconfined: the allowlist, its own credential and endpoint, where its config is, the pins last', () => {
    expect(agentEnv(descriptor, base, { named: ['MY_KEY'] })).toEqual({
      PATH: '/bin',
      HOME: '/home/u',
      LANG: 'C',
      HTTPS_PROXY: 'http://proxy:3128',
      AGENT_KEY: 'its own key',
      AGENT_BASE_URL: 'http://localhost:1',
      MY_KEY: 'named by its config',
      CODEX_HOME: '/home/u/.codex',
      XDG_CONFIG_HOME: '/home/u/.config',
      AGENT_TRUST_WORKSPACE: 'false',
    });
  });

  it('confined: the session’s home replaces every place the user’s config is', () => {
    const env = agentEnv(descriptor, base, {
      home: { HOME: '/s/home', XDG_CONFIG_HOME: '/s/home/.config', CODEX_HOME: '/s/home/.codex' },
      posture: { RULES: '{}' },
    });
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/s/home',
      LANG: 'C',
      HTTPS_PROXY: 'http://proxy:3128',
      AGENT_KEY: 'its own key',
      AGENT_BASE_URL: 'http://localhost:1',
      XDG_CONFIG_HOME: '/s/home/.config',
      CODEX_HOME: '/s/home/.codex',
      RULES: '{}',
      AGENT_TRUST_WORKSPACE: 'false',
    });
  });
});
