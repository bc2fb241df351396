/**
 * The project's `.env` as the run read it, pinned without its secrets: a keyed MAC (the store's
 * key, which no sandbox sees) of the variables it defined, kept in the sealed run record. A
 * resume reads the files again (a new start), but a project `.env` whose variables differ from
 * the pin is refused like a changed definition: in `inplace` isolation a confined step could have
 * written it before the run stopped. The user's `NEO_HOME/.env` is not pinned: no sandbox can
 * write it, and the user may add a missing key before resuming.
 */
import type { DotenvLayers } from '../../agent/settings/index.js';
import { scryptSync } from 'node:crypto';
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

/**
 * The project `.env` as a durable run's first start read it, for the plan pin a takeover checks
 * (store/plan-pin.ts): another worker has another NEO_HOME and so another store key, so this is
 * no MAC but a deliberately slow hash (scrypt), kept only inside the pin's digest in the run's
 * database — which every worker of the run, and no sandbox, reads. Undefined when no project
 * `.env` was read (no repository, or an untrusted one), which leaves the pin as it was.
 */
export function durableDotenvDigest(dotenv: DotenvLayers): string | undefined {
  const file = dotenv.files[1];
  if (file === undefined || dotenv.project === undefined) return undefined;
  const text = JSON.stringify([file, [...dotenv.project].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  return scryptSync(text, DURABLE_DOMAIN, 32).toString('hex');
}

const DURABLE_DOMAIN = 'neo.durable-project-dotenv.v1';
