/**
 * The project's `.env` as the run read it, pinned without its secrets: a keyed MAC (the store's
 * key, which no sandbox sees) of the variables it defined, kept in the sealed run record. A
 * resume reads the files again (a new start), but a project `.env` whose variables differ from
 * the pin is refused like a changed definition: in `inplace` isolation a confined step could have
 * written it before the run stopped. The user's `NEO_HOME/.env` is not pinned: no sandbox can
 * write it, and the user may add a missing key before resuming.
 */
import type { DotenvLayers } from '../../agent/settings/index.js';
import { macOf, storeKey } from '../../util/store-key.js';

const DOMAIN = 'neo.run-project-dotenv.v1';

/** The pin of a run's project `.env`; the file of a trusted project, whether it existed or not. */
export interface DotenvPin {
  file: string;
  mac: string;
}

/** Undefined when no project `.env` was read (no repository, or an untrusted one). */
export function pinProjectDotenv(home: string, dotenv: DotenvLayers): DotenvPin | undefined {
  const file = dotenv.files[1];
  if (file === undefined || dotenv.project === undefined) return undefined;
  return { file, mac: macOf(storeKey(home), DOMAIN, file, JSON.stringify([...dotenv.project])) };
}

/**
 * The project `.env` file when what a resume read differs from the run's pin. A run that pinned
 * none (its project was not trusted then), or a resume that reads none, has nothing to compare.
 */
export function changedProjectDotenv(home: string, pin: DotenvPin | undefined, now: DotenvLayers): string | undefined {
  const current = pinProjectDotenv(home, now);
  if (pin === undefined || current === undefined) return undefined;
  return current.file === pin.file && current.mac === pin.mac ? undefined : current.file;
}
