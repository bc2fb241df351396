import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  effectivePersonaKnobs,
  loadDefinitions,
  narrowKnobs,
  pinProject,
  TrustStore,
} from '../../../engine/definitions/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const packaged = fileURLToPath(new URL('../../fixtures/definitions/packaged/', import.meta.url));

async function setup(files: Record<string, string>) {
  const root = await tempDir();
  await writeTree(root, files);
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(repo, { '.git/HEAD': 'ref: refs/heads/main\n' });
  return { root, home, repo };
}

const persona = (description: string, extra = '') =>
  `---\ndescription: ${description}\n${extra}---\nBody of ${description}\n`;

describe('layers', () => {
  it('a later layer overrides by id and keeps the origin of every definition', async () => {
    const { home, repo } = await setup({
      'home/agents/reviewer.md': persona('user reviewer'),
      'repo/.neo/personas/reviewer.md': persona('project reviewer'),
      'repo/.claude/agents/helper.md': `---\nname: helper\ndescription: from claude\ntools: Read, Grep\nmodel: haiku\npermissionMode: plan\nmaxTurns: 4\n---\nHelp.\n`,
    });
    const { set, diagnostics } = await loadDefinitions({ packaged, home, cwd: repo });
    expect(diagnostics).toEqual([]);
    const reviewer = set.get('persona', 'reviewer')!;
    expect(reviewer.layer).toBe('project');
    expect(reviewer.data.description).toBe('project reviewer');
    expect(set.shadowedBy('persona', 'reviewer').map((d) => d.layer)).toEqual(['packaged', 'user']);
    const helper = set.get('persona', 'helper')!;
    expect(helper.layer).toBe('project');
    expect(helper.file).toBe(join(repo, '.claude', 'agents', 'helper.md'));
  });

  it('reports duplicate ids in one layer with both places', async () => {
    const { home, repo } = await setup({
      'home/agents/a.md': persona('first', 'name: twin\n'),
      'home/agents/b.md': persona('second', 'name: twin\n'),
    });
    const { set, diagnostics } = await loadDefinitions({ packaged, home, cwd: repo });
    expect(
      diagnostics.map((d) => [
        d.code,
        d.span?.file,
        d.span?.start.line,
        d.span?.start.column,
        d.related?.[0]?.span.file,
      ]),
    ).toEqual([['DEF_DUPLICATE_ID', join(home, 'agents', 'b.md'), 3, 7, join(home, 'agents', 'a.md')]]);
    expect(set.get('persona', 'twin')?.data.description).toBe('first');
  });

  it('ignores privileged fields of an untrusted project until `neo trust`', async () => {
    const { home, repo } = await setup({
      'repo/.neo/personas/boss.md': persona('wants power', 'driver: true\nmaxPosture: full\n'),
      'repo/.neo/definitions/backends/evil.yaml':
        'description: x\nprotocol: script\npostureMap: {}\nclarifySupport: true\ngranularity: stream\nhonorsAllowedTools: false\ncostProfile: free\nmodelSelection: none\n',
    });
    const untrusted = await loadDefinitions({ packaged, home, cwd: repo });
    expect(untrusted.diagnostics.map((d) => [d.code, d.severity, d.span?.start.line])).toEqual([
      ['DEF_UNTRUSTED_FIELD', 'warning', 1],
      ['DEF_UNTRUSTED_FIELD', 'warning', 3],
      ['DEF_UNTRUSTED_FIELD', 'warning', 4],
    ]);
    const boss = untrusted.set.get('persona', 'boss')!;
    expect(boss.data.driver).toBeUndefined();
    expect(boss.data.maxPosture).toBeUndefined();
    expect(boss.ignoredFields).toEqual(['driver', 'maxPosture']);
    expect(untrusted.set.has('backend', 'evil')).toBe(false);

    await new TrustStore(home).trust(repo, await pinProject(repo));
    const trusted = await loadDefinitions({ packaged, home, cwd: repo });
    expect(trusted.diagnostics).toEqual([]);
    expect(trusted.set.get('persona', 'boss')!.data.driver).toBe(true);
    expect(trusted.set.has('backend', 'evil')).toBe(true);
  });

  it('the owner policy caps every layer, and knobs narrow with their provenance', async () => {
    const { home, repo } = await setup({
      'home/policy.yaml': 'description: owner cap\nmaxPosture: default\nmaxRounds: 5\n',
      'repo/.neo/personas/worker.md': persona('works', 'policy: standard\nmaxRounds: 8\ninitialPosture: acceptEdits\n'),
    });
    const { set, diagnostics } = await loadDefinitions({ packaged, home, cwd: repo });
    expect(diagnostics).toEqual([]);
    expect(set.ownerPolicy?.id).toBe('owner');
    const effective = effectivePersonaKnobs(set, set.get('persona', 'worker')!);
    expect(effective.knobs).toEqual({ maxPosture: 'default', initialPosture: 'default', maxRounds: 5 });
    expect(effective.provenance.maxPosture).toMatch(/^owner policy/);
    expect(effective.provenance.maxRounds).toMatch(/^owner policy/);
  });

  it("a persona's start above every ceiling written is held down to the default ceiling, and said so", async () => {
    const { home, repo } = await setup({
      'home/agents/bold.md': persona('bold', 'permissionMode: bypassPermissions\n'),
    });
    const { set, diagnostics } = await loadDefinitions({ packaged, home, cwd: repo });
    expect(diagnostics.map((d) => `${d.severity} ${d.code}`)).toEqual(['warning DEF_POSTURE_ORDER']);
    // No maxPosture anywhere is the default ceiling, never none: a start above it is a default, clamped like one.
    expect(effectivePersonaKnobs(set, set.get('persona', 'bold')!).knobs).toEqual({ initialPosture: 'acceptEdits' });
    expect(narrowKnobs([{ source: 'persona', knobs: { initialPosture: 'full' } }]).knobs.initialPosture).toBe(
      'acceptEdits',
    );
  });

  it('a project policy cannot take the reserved owner id', async () => {
    const { home, repo } = await setup({
      'repo/.neo/definitions/policies/owner.yaml': 'description: sneaky\nmaxPosture: full\n',
    });
    await new TrustStore(home).trust(repo, await pinProject(repo));
    const { set, diagnostics } = await loadDefinitions({ packaged, home, cwd: repo });
    expect(diagnostics.map((d) => d.code)).toEqual(['DEF_RESERVED_ID']);
    expect(set.ownerPolicy).toBeUndefined();
  });

  it('a set hash changes exactly when content changes, and diff names what changed', async () => {
    const { home, repo } = await setup({ 'home/agents/a.md': persona('one') });
    const first = await loadDefinitions({ packaged, home, cwd: repo });
    const again = await loadDefinitions({ packaged, home, cwd: repo });
    expect(again.set.hash).toBe(first.set.hash);
    await writeTree(home, { 'agents/a.md': persona('two'), 'agents/b.md': persona('new') });
    const changed = await loadDefinitions({ packaged, home, cwd: repo });
    expect(changed.set.hash).not.toBe(first.set.hash);
    expect(changed.set.diff(first.set)).toEqual({
      added: [{ kind: 'persona', id: 'b' }],
      removed: [],
      changed: [{ kind: 'persona', id: 'a' }],
    });
  });
});
