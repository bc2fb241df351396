import { mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(removeTempDirs);

/** Removes the temp folders made since the last cleanup (after each test). */
export async function removeTempDirs(): Promise<void> {
  while (created.length > 0) await rm(created.pop()!, { recursive: true, force: true });
}

/** The temp folders made since the last cleanup (the leak harness checks them before they go). */
export function tempDirsNow(): string[] {
  return [...created];
}

/** A fresh temp folder, removed after the test. */
export async function tempDir(prefix = 'neo-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** Writes a tree of files ({ 'a/b.yaml': 'text' }) under `root`. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}
