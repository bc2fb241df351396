import { describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { DEFAULT_DRIVER, loadPersona } from '../../../engine/persona/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const OWN = '---\ndescription: my own specialist\ndriver: true\nmaxPosture: default\n---\nMine.\n';

describe('loading the persona to dispatch', () => {
  test('the default driver is the packaged code-specialist, read as it is', async () => {
    const { set } = await loadDefinitions({ cwd: await tempDir(), home: await tempDir() });
    const p = loadPersona(set, undefined);
    expect(p.view.id).toBe(DEFAULT_DRIVER);
    expect(p.definition.layer).toBe('packaged');
    expect(p.view.driver).toBe(true);
    expect(p.rules.verify).toBe('npm test');
  });

  test('an owner-installed NEO_HOME/agents/code-specialist.md wins', async () => {
    const home = await tempDir();
    await writeTree(home, { 'agents/code-specialist.md': OWN });
    const { set } = await loadDefinitions({ cwd: await tempDir(), home });
    const p = loadPersona(set, undefined);
    expect(p.definition.layer).toBe('user');
    expect(p.view.description).toBe('my own specialist');
  });

  test('a project cannot swap in its own default driver', async () => {
    const repo = await tempDir();
    await writeTree(repo, { '.git/HEAD': 'ref: refs/heads/main\n', '.neo/personas/code-specialist.md': OWN });
    const { set } = await loadDefinitions({ cwd: repo, home: await tempDir() });
    expect(set.get('persona', DEFAULT_DRIVER)!.layer).toBe('project');
    expect(loadPersona(set, undefined).definition.layer).toBe('packaged');
  });

  test('an unknown id is a usage error with a suggestion', async () => {
    const { set } = await loadDefinitions({ cwd: await tempDir(), home: await tempDir() });
    expect(() => loadPersona(set, 'code-specalist')).toThrow(
      expect.objectContaining({ code: 'PERSONA_UNKNOWN', hint: 'did you mean `code-specialist`?' }),
    );
  });
});
