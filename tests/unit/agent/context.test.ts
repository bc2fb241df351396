import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentsMdSection,
  discoverAgentsMd,
  discoverSkills,
  expandSkillMentions,
  loadSkill,
  skillCatalog,
} from '../../../engine/agent/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

describe('AGENTS.md discovery', () => {
  it('collects every AGENTS.md from the repo root down to the cwd, outermost first', async () => {
    const repo = await tempDir();
    await writeTree(repo, {
      'AGENTS.md': 'root\n',
      'a/AGENTS.md': 'a\n',
      'a/b/c/AGENTS.md': 'c\n',
      'other/AGENTS.md': 'not on the path\n',
      'a/b/c/d/.keep': '',
    });
    const found = await discoverAgentsMd(repo, join(repo, 'a', 'b', 'c', 'd'));
    expect(found).toEqual([
      { path: 'AGENTS.md', text: 'root' },
      { path: 'a/AGENTS.md', text: 'a' },
      { path: 'a/b/c/AGENTS.md', text: 'c' },
    ]);
    expect(agentsMdSection(found)).toBe(
      '# Project instructions (AGENTS.md)\n\n## AGENTS.md\nroot\n\n## a/AGENTS.md\na\n\n## a/b/c/AGENTS.md\nc',
    );
    expect(agentsMdSection([])).toBe('');
  });
});

describe('skills', () => {
  it('lists SKILL.md folders, a later root winning by name, and loads one by name', async () => {
    const home = await tempDir();
    const repo = await tempDir();
    await writeTree(home, {
      'skills/deploy/SKILL.md': '---\nname: deploy\ndescription: user deploy\n---\nuser body\n',
      'skills/lint/SKILL.md': '---\ndescription: >\n  Run the\n  linter.\n---\nnpx eslint .\n',
      'skills/empty/readme.txt': 'no skill',
    });
    await writeTree(repo, {
      'skills/deploy/SKILL.md': '---\nname: deploy\ndescription: project deploy\n---\nproject body\n',
      'skills/deploy/run.sh': 'echo deploy\n',
    });
    const skills = await discoverSkills([join(home, 'skills'), join(repo, 'skills')]);
    expect(skills.map((s) => [s.name, s.description])).toEqual([
      ['deploy', 'project deploy'],
      ['lint', 'Run the linter.'],
    ]);
    expect(skillCatalog(skills)).toBe(
      '# Skills\nLoad a skill with the load_skill tool when the task matches its description.\n- deploy: project deploy\n- lint: Run the linter.',
    );
    expect(await loadSkill(skills[0]!)).toBe(
      `project body\n\nFiles in this skill (read them with read_file): ${join(repo, 'skills', 'deploy', 'run.sh')}`,
    );
    expect(await expandSkillMentions('please $lint the code', skills)).toBe(
      'please $lint the code\n\n<skill name="lint">\nnpx eslint .\n</skill>',
    );
    expect(await expandSkillMentions('/deploy now', skills)).toContain('<skill name="deploy">\nproject body');
    expect(await expandSkillMentions('costs $5 and a/deploy path', skills)).toBe('costs $5 and a/deploy path');
  });
});
