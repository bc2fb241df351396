/** The shell commands run under, and the environment they get. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
let shell;
/** bash when it is on PATH (models write bash), else sh. */
export function commandShell(env = process.env) {
    if (shell !== undefined)
        return shell;
    for (const dir of (env.PATH ?? '').split(delimiter)) {
        if (dir === '')
            continue;
        try {
            accessSync(join(dir, 'bash'), constants.X_OK);
            shell = join(dir, 'bash');
            return shell;
        }
        catch {
            // keep looking
        }
    }
    shell = '/bin/sh';
    return shell;
}
/** `base` without the variables that hold the agent's own secrets (a model key never reaches a command). */
export function scrubbedEnv(base, secretNames) {
    const env = { ...base };
    for (const name of secretNames)
        delete env[name];
    return env;
}
