/**
 * Fetched skills cached by commit: NEO_HOME/capabilities/skills/<owner>__<repo>/<commit>/<path>/.
 * A commit's files never change, so a cached folder is reused as it is; a fetch lands in a temp
 * folder renamed into place whole. Every file is written as a plain, non-executable file at a
 * path checked to stay inside the folder.
 */
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { normal } from './project-inputs.js';
import type { SkillFetcher } from './skill-fetcher.js';

export function skillCacheDir(home: string, repo: string, commit: string, path: string): string {
  const folder = normal(path).replaceAll('/', '__') || '_root';
  return join(home, 'capabilities', 'skills', repo.replace('/', '__'), commit, folder);
}

/** The cached folder of one skill, fetched first when it is not cached yet. */
export async function cachedSkill(
  home: string,
  source: { repo: string; commit: string; path: string },
  fetcher: SkillFetcher,
): Promise<string> {
  const dir = skillCacheDir(home, source.repo, source.commit, source.path);
  if ((await stat(join(dir, 'SKILL.md')).catch(() => undefined))?.isFile()) return dir;
  const files = await fetcher(source.repo, source.commit, source.path);
  const temp = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    for (const file of files) {
      const rel = normal(file.path);
      if (rel === '' || rel !== file.path) throw new Error(`a skill file path leaves its folder: ${file.path}`);
      const target = join(temp, rel);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.bytes, { mode: 0o644, flag: 'wx' });
    }
    if (!(await stat(join(temp, 'SKILL.md')).catch(() => undefined))?.isFile())
      throw new Error(`${source.repo}/${source.path} at ${source.commit.slice(0, 8)} has no SKILL.md`);
    await mkdir(dirname(dir), { recursive: true });
    await rm(dir, { recursive: true, force: true });
    await rename(temp, dir);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return dir;
}
