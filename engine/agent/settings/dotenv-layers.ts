/**
 * The `.env` files a provider's `${NAME}` references fall back on after the environment: the
 * user's (`NEO_HOME/.env`) and, for a trusted project, `<repo>/.neo/.env` (an untrusted
 * project's is never read). Read once and held in memory only: a flow reads them when its run
 * starts, with its definitions, so a `.neo/.env` a confined step writes in the middle of the run
 * (the workspace is the checkout in `inplace` isolation) changes no key or provider choice of
 * a later agent step. The values are secrets: nothing here is ever written to disk.
 */
import { join } from 'node:path';
import {
  DOTENV_PIN_KEY,
  dotenvDigest,
  dotenvTrust,
  findRepoRoot,
  TrustStore,
  type Pins,
} from '../../definitions/index.js';
import { readDotenv } from './dotenv.js';

/** The variables of the user's and the project's `.env`, as read at one moment. */
export interface DotenvLayers {
  /** The files looked at (user's first), whether or not they existed. */
  readonly files: readonly string[];
  readonly user: ReadonlyMap<string, string>;
  /** Undefined when there is no project, it is not trusted, or its variables are not what `neo trust` pinned. */
  readonly project: ReadonlyMap<string, string> | undefined;
  /** Why the project's file was read but not used (its variables changed since `neo trust`). */
  readonly warnings: readonly string[];
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
  const trust = repo === undefined ? undefined : await new TrustStore(home).projectTrust(repo);
  const userFile = join(home, '.env');
  const projectFile = repo !== undefined && trust?.trusted ? join(repo, '.neo', '.env') : undefined;
  const [user, read] = await Promise.all([
    readDotenv(userFile),
    projectFile === undefined ? undefined : readDotenv(projectFile),
  ]);
  // Its variables are privileged (a provider's `${NAME}` takes them first): as `neo trust` pinned them, or none.
  const verdict = read === undefined || trust === undefined ? undefined : dotenvTrust(trust, read);
  const warnings =
    verdict !== undefined && !verdict.trusted
      ? [`${projectFile}: its variables are ignored: ${verdict.reason.because}`]
      : [];
  return Object.freeze({
    files: Object.freeze(projectFile === undefined ? [userFile] : [userFile, projectFile]),
    user,
    project: verdict?.trusted === false ? undefined : read,
    warnings: Object.freeze(warnings),
  });
}

/** What `neo trust` pins of a repository's `.neo/.env`: its variables' digest, when it defines any. */
export async function projectDotenvPin(repo: string): Promise<Pins> {
  const digest = dotenvDigest(await readDotenv(join(repo, '.neo', '.env')));
  return digest === undefined ? {} : { [DOTENV_PIN_KEY]: digest };
}
