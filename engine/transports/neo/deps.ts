/** What the neo transport takes from its surroundings; tests swap any of it. */
import type { DotenvLayers, Provider, RetryHooks } from '../../agent/index.js';
import type { Definition } from '../../definitions/index.js';

export interface NeoTransportDeps {
  /** The environment secrets are read from and commands inherit (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** NEO_HOME (default: from env). */
  home?: string;
  /** neo.yaml definitions already loaded; read from disk when absent. */
  configs?: readonly Definition<'config'>[];
  /** The `.env` files already read (with `configs`); read from disk when absent. */
  dotenv?: DotenvLayers;
  /** Replaces the HTTP provider built from neo.yaml (an in-test fake). */
  provider?: Provider;
  retryHooks?: RetryHooks;
  /** The ripgrep binary for grep; null forces the pure-Node search. */
  ripgrep?: string | null;
}
