/**
 * Skills: folders holding a SKILL.md (YAML frontmatter with `name` and `description`, then
 * instructions). The system prompt lists them; the model loads one by name with load_skill; a
 * user message naming `$skill` (or starting with `/skill`) gets that skill's instructions attached.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { splitFrontmatter } from '../../definitions/index.js';

export interface Skill {
  name: string;
  description: string;
  /** The skill's folder. */
  dir: string;
}

const SKILL_FILE = 'SKILL.md';

/**
 * Skills in `roots`, lowest precedence first (a later root's skill replaces an earlier one of the
 * same name). A root is a skill folder itself or a folder of skill folders.
 */
export async function discoverSkills(roots: readonly string[]): Promise<Skill[]> {
  const byName = new Map<string, Skill>();
  for (const root of roots) {
    const dirs = (await isFile(join(root, SKILL_FILE))) ? [root] : await subfolders(root);
    for (const dir of dirs) {
      const skill = await readSkillHeader(dir);
      if (skill !== undefined) byName.set(skill.name, skill);
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function readSkillHeader(dir: string): Promise<Skill | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, SKILL_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const meta = frontmatter(text);
  const name = typeof meta.name === 'string' && meta.name.trim() !== '' ? meta.name.trim() : basename(dir);
  const description = typeof meta.description === 'string' ? meta.description.trim().replace(/\s+/g, ' ') : '';
  return { name, description, dir };
}

/** The skill's instructions (SKILL.md without its frontmatter) and the other files it ships. */
export async function loadSkill(skill: Skill): Promise<string> {
  const text = await readFile(join(skill.dir, SKILL_FILE), 'utf8');
  const split = splitFrontmatter(text);
  const body = split.ok ? split.split.body : text;
  const files = (await readdir(skill.dir)).filter((f) => f !== SKILL_FILE).sort();
  const extra =
    files.length > 0
      ? `\n\nFiles in this skill (read them with read_file): ${files.map((f) => join(skill.dir, f)).join(', ')}`
      : '';
  return `${body.trim()}${extra}`;
}

/** The catalog for the system prompt. */
export function skillCatalog(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return [
    '# Skills',
    'Load a skill with the load_skill tool when the task matches its description.',
    ...skills.map((s) => `- ${s.name}: ${s.description || '(no description)'}`),
  ].join('\n');
}

/** `text` with the instructions of every skill it names as `$name` (or a leading `/name`) attached. */
export async function expandSkillMentions(text: string, skills: readonly Skill[]): Promise<string> {
  const named = new Set<string>();
  for (const match of text.matchAll(/(?:^\/|(?<![\w$])\$)([A-Za-z0-9][\w.-]*)/g)) named.add(match[1]!);
  const attached: string[] = [];
  for (const skill of skills)
    if (named.has(skill.name)) attached.push(`<skill name="${skill.name}">\n${await loadSkill(skill)}\n</skill>`);
  return attached.length === 0 ? text : `${text}\n\n${attached.join('\n\n')}`;
}

function frontmatter(text: string): Record<string, unknown> {
  const split = splitFrontmatter(text);
  if (!split.ok) return {};
  try {
    const value: unknown = parse(split.split.yaml);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function subfolders(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => join(root, e.name))
      .sort();
  } catch {
    return [];
  }
}
