/** load_skill: a skill's instructions by name. */
import type { AgentTool } from '../tool.js';
import { requireString } from '../tool.js';
import { loadSkill, type Skill } from '../context/skills.js';

export function loadSkillTool(skills: readonly Skill[]): AgentTool {
  return {
    effect: 'read',
    spec: {
      name: 'load_skill',
      description: `Loads a skill's instructions by name. Available: ${skills.map((s) => s.name).join(', ') || '(none)'}.`,
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string', description: 'The skill name, as listed in the system prompt.' } },
        required: ['name'],
      },
    },
    async run(input) {
      const name = requireString(input, 'name');
      const skill = skills.find((s) => s.name === name);
      if (skill === undefined)
        return {
          output: `no skill named "${name}"; available: ${skills.map((s) => s.name).join(', ') || '(none)'}`,
          isError: true,
        };
      return { output: await loadSkill(skill), isError: false };
    },
  };
}
