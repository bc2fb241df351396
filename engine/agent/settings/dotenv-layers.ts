/**
 * The `.env` files a provider's `${NAME}` references fall back on after the environment: the
 * user's (`NEO_HOME/.env`) and, for a trusted project, `<repo>/.neo/.env` (an untrusted
 * project's is never read). Read once and held in memory only: a flow reads them when its run
 * starts, with its definitions, so a `.neo/.env` a confined step writes in the middle of the run
 * (the workspace is the checkout in `inplace` isolation) changes no key or provider choice of
 * a later agent step. The values are secrets: nothing here is ever written to disk.
 */
import { join } from 'node:path';
import { findRepoRoot, TrustStore } from '../../definitions/index.js';
import { readDotenv } from './dotenv.js';

/** The variables of the user's and the project's `.env`, as read at one moment. */
export interface DotenvLayers {
  /** The files looked at (user's first), whether or not they existed. */
  readonly files: readonly string[];
  readonly user: ReadonlyMap<string, string>;
  /** Undefined when there is no project, or it is not trusted. */
  readonly project: ReadonlyMap<string, string> | undefined;
}

export interface ReadDotenvOptions {
  /** A folder of the project; its repository root holds `.neo/.env`. */
  cwd: string;
  /** NEO_HOME. */
  home: string;
  /** Leave out the project's file. */
  noProject?: boolean;
}

/** Reads both files now (a missing file defines nothing). */
export async function readDotenvLayers(options: ReadDotenvOptions): Promise<DotenvLayers> {
  const { home } = options;
  const repo = options.noProject ? undefined : findRepoRoot(options.cwd, { exclude: home });
  const trusted = repo !== undefined && (await new TrustStore(home).isTrusted(repo));
  const userFile = join(home, '.env');
  const projectFile = repo !== undefined && trusted ? join(repo, '.neo', '.env') : undefined;
  const [user, project] = await Promise.all([
    readDotenv(userFile),
    projectFile === undefined ? undefined : readDotenv(projectFile),
  ]);
  return Object.freeze({
    files: Object.freeze(projectFile === undefined ? [userFile] : [userFile, projectFile]),
    user,
    project,
  });
}
