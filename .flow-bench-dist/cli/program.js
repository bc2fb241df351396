import { Command } from 'commander';
import { GROUPS } from './groups/index.js';
/** Builds the `neo` commander program. */
export function buildProgram(io, version) {
    const result = { exitCode: 0 };
    const program = new Command('neo')
        .description('A declarative workflow engine for coding agents.')
        .version(version, '-V, --version', 'print the version')
        .showHelpAfterError('(run `neo help` for usage)')
        .exitOverride()
        .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    const context = {
        io,
        result,
        lazy(load) {
            return async (...args) => {
                const module = await load();
                // commander passes (…positionals, options, command); drop the command object.
                result.exitCode = await module.run(io, ...args.slice(0, -1));
            };
        },
    };
    for (const register of GROUPS)
        register(program, context);
    return { program, result };
}
