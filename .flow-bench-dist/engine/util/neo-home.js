import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
/** The state root: `$NEO_HOME`, else `~/.neo`. Tests always set NEO_HOME to a temp dir. */
export function neoHome(env = process.env) {
    const fromEnv = env.NEO_HOME;
    return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : join(homedir(), '.neo');
}
