import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../../engine/definitions/index.js';
import { agentEnv } from '../../../../engine/transports/shared/agent-env.js';
import { tempDir } from '../../../helpers/temp.js';

/** Switches that make a CLI trust its workspace, load a repository's hooks, or skip its own checks. */
const TRUST_SWITCHES = [
  'GEMINI_CLI_TRUST_WORKSPACE',
  'GEMINI_CLI_TRUSTED_FOLDERS_PATH',
  'GEMINI_CLI_SYSTEM_SETTINGS_PATH',
  'IS_SANDBOX',
  'CLAUDE_CODE_EVEN_MORE_DANGEROUSLY_SKIP_PERMISSIONS',
  'CLAUDE_CODE_MANAGED_SETTINGS_PATH',
  'COPILOT_ALLOW_ALL',
  'GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS',
  'OPENCODE_CONFIG_CONTENT',
  'OPENCODE_PERMISSION',
];

describe('the packaged descriptors’ environments', async () => {
  const home = await tempDir();
  const { set } = await loadDefinitions({ cwd: home, home, noProject: true });
  const backends = set.ids('backend').map((id) => ({ id, data: set.get('backend', id)!.data }));

  it('no trust switch of the user’s shell reaches any CLI; the pinned ones have neo’s value', () => {
    const shell = Object.fromEntries(TRUST_SWITCHES.map((name) => [name, 'true']));
    for (const { id, data } of backends) {
      const env = agentEnv(data, { PATH: '/bin', ...shell });
      for (const name of TRUST_SWITCHES)
        expect(env[name], `${id} ${name}`).toBe(data.environment?.pin?.[name] ?? undefined);
    }
    expect(backends.find((b) => b.id === 'gemini')!.data.environment?.pin).toEqual({
      GEMINI_CLI_TRUST_WORKSPACE: 'false',
    });
  });

  it('every namesEnv is a regular expression with a group, and what a CLI keeps is never also pinned', () => {
    for (const { id, data } of backends) {
      for (const entry of data.configHome ?? [])
        if (entry.namesEnv !== undefined) expect(new RegExp(entry.namesEnv).source, id).toContain('(');
      const kept = [...(data.command?.authEnv ?? []), ...(data.environment?.keep ?? [])];
      expect(
        kept.filter((name) => data.environment?.pin?.[name] !== undefined),
        id,
      ).toEqual([]);
      expect(
        kept.filter((name) => TRUST_SWITCHES.includes(name)),
        id,
      ).toEqual([]);
    }
  });
});
