import { describe, expect, it } from 'vitest';
import { confinedEnv } from '../../../engine/execution/index.js';

describe('confinedEnv: an allowlist, never the caller environment minus a denylist', () => {
  const source = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    LC_ALL: 'C.UTF-8',
    ANTHROPIC_API_KEY: 'sk-ant-secret',
    GITHUB_TOKEN: 'ghp_secret',
    DATABASE_URL: 'postgres://u:p@db/x',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NPM_TOKEN: 'npm_secret',
  };

  it('keeps the base names and locale family only', () => {
    expect(confinedEnv(source)).toEqual({ PATH: '/usr/bin', HOME: '/home/u', LC_ALL: 'C.UTF-8' });
  });

  it('keeps a name the caller declares, and sets values over what it kept', () => {
    expect(confinedEnv(source, { keep: ['NPM_TOKEN', 'UNSET'], set: { HOME: '/tmp/h', NEO_OUTPUT: '/o' } })).toEqual({
      PATH: '/usr/bin',
      HOME: '/tmp/h',
      LC_ALL: 'C.UTF-8',
      NPM_TOKEN: 'npm_secret',
      NEO_OUTPUT: '/o',
    });
  });
});
