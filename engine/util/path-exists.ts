import { stat } from 'node:fs/promises';

/** Whether anything is at `path` (a file, a folder, a symlink's target); never throws. */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
