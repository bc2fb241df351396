import { describe, expect, it } from 'vitest';
import { normalizeRemote, redactRemote, refSafe, runRefs } from '../../../../engine/flow/engines/dbos/remote-git.js';
import { NeoError } from '../../../../engine/util/errors.js';

function refusal(given: string): string {
  try {
    normalizeRemote(given, '/work/project');
  } catch (error) {
    return error instanceof NeoError ? `${error.code}: ${error.message}` : String(error);
  }
  return 'accepted';
}

describe("a run's remote", () => {
  it('is stored as an absolute path or a URL of a protocol neo pushes over', () => {
    expect(normalizeRemote('../shared.git', '/work/project')).toBe('/work/shared.git');
    expect(normalizeRemote('/srv/git/neo.git', '/work/project')).toBe('/srv/git/neo.git');
    expect(normalizeRemote('ssh://git@host/neo.git', '/x')).toBe('ssh://git@host/neo.git');
    expect(normalizeRemote('git@host:team/neo.git', '/x')).toBe('git@host:team/neo.git');
    expect(normalizeRemote('host:neo.git', '/x')).toBe('host:neo.git');
    expect(normalizeRemote('https://host/neo.git', '/x')).toBe('https://host/neo.git');
    expect(normalizeRemote('file:///srv/neo.git', '/x')).toBe('file:///srv/neo.git');
  });

  it('never holds credentials nor names a program', () => {
    expect(refusal('https://me:hunter2@host/r.git')).toBe(
      'ENGINE_REMOTE_BAD_URL: --remote `https://***@host/r.git`: it holds credentials, which would be stored in the run’s record',
    );
    expect(refusal('https://ghp_token@host/r.git')).toContain('ENGINE_REMOTE_BAD_URL');
    expect(refusal('https://ghp_token@host/r.git')).not.toContain('ghp_token');
    expect(refusal('ext::sh -c touch% /tmp/pwned')).toBe(
      'ENGINE_REMOTE_BAD_URL: --remote `ext::sh -c touch% /tmp/pwned`: remote helpers (`<transport>::<address>`) run programs',
    );
    expect(refusal('ftp://host/r.git')).toContain('the ftp:// protocol is not one neo pushes over');
    expect(refusal('--upload-pack=evil')).toContain('it is not a path or a URL');
    expect(redactRemote('ssh://git:pw@host/r.git')).toBe('ssh://git:***@host/r.git');
  });

  it("its refs are named from the run's id and the step's key, each key one valid ref component", () => {
    const refs = runRefs('20261206-120000-abcdef');
    expect(refs.base).toBe('refs/neo/runs/20261206-120000-abcdef/base');
    expect(refs.head).toBe('refs/neo/runs/20261206-120000-abcdef/head');
    expect(refs.step('fix[0]#1.2')).toBe('refs/neo/runs/20261206-120000-abcdef/steps/fix%5B0%5D#1.2');
    expect(refSafe('a b/c~d^e:f?g*h\\i')).toBe('a%20b%2Fc%7Ed%5Ee%3Af%3Fg%2Ah%5Ci');
  });
});
