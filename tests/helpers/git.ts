import { execa } from 'execa';

/** Makes `dir` a git repository on `main` with everything in it committed once (`message`, by a test identity). */
export async function commitAll(dir: string, message = 'init'): Promise<void> {
  await execa('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  await execa('git', ['add', '-A'], { cwd: dir });
  await execa('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', message], {
    cwd: dir,
  });
}
