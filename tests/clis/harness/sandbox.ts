import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { tempDir } from '../../helpers/temp.js';

/** An isolated place to run one CLI: its own HOME, config dirs and a git repo to work in. */
export interface Sandbox {
  root: string;
  home: string;
  repo: string;
  /** The environment every CLI run starts from: no variable of the real environment leaks in but PATH. */
  baseEnv: NodeJS.ProcessEnv;
}

export async function sandbox(): Promise<Sandbox> {
  const root = await tempDir('neo-cli-');
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await mkdir(home, { recursive: true });
  await mkdir(repo, { recursive: true });
  await execa('git', ['init', '-q'], { cwd: repo });
  await writeFile(join(repo, 'README.md'), '# scratch repo\n');
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    USER: 'neo-test',
    LANG: 'C.UTF-8',
    TMPDIR: join(root, 'tmp'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    NEO_HOME: join(root, 'neo-home'),
    NO_COLOR: '1',
  };
  await mkdir(baseEnv.TMPDIR!, { recursive: true });
  return { root, home, repo, baseEnv };
}
