import { NeoError } from '../../util/errors.js';
import { binaryEnvVar, requestedBinary, resolveBinary } from './binary.js';
/**
 * Resolves the executable and environment for a session. A missing binary is the one clear
 * TRANSPORT_BINARY_MISSING error, naming the install command and the override variable.
 */
export function planLaunch(backendId, options) {
    const descriptor = options.descriptor;
    const baseEnv = options.env ?? process.env;
    const env = { ...childEnv(baseEnv, descriptor.env), ...postureEnv(descriptor.postureMap[options.posture]) };
    const resolved = resolveBinary(backendId, descriptor, env, options.cwd);
    if (resolved === undefined)
        throw binaryMissing(backendId, descriptor, env);
    return { file: resolved.path, baseArgs: [...(descriptor.command?.args ?? [])], env, cwd: options.cwd };
}
/** The TRANSPORT_BINARY_MISSING error for a backend. */
export function binaryMissing(backendId, descriptor, env) {
    const wanted = requestedBinary(backendId, descriptor, env);
    const install = descriptor.command?.install;
    return new NeoError('TRANSPORT_BINARY_MISSING', `${descriptor.displayName ?? backendId}: executable "${wanted}" not found`, {
        hint: `${install === undefined ? 'install it' : `install it with \`${install}\``}, or point ${binaryEnvVar(backendId)} at the executable`,
    });
}
/**
 * The descriptor's mapping for a posture. Postures fail closed: a posture the descriptor does
 * not list rejects the start (or the posture change).
 */
export function postureTarget(backendId, descriptor, posture) {
    const target = descriptor.postureMap[posture];
    if (target === undefined) {
        const known = Object.keys(descriptor.postureMap).join(', ') || 'none';
        throw new NeoError('TRANSPORT_POSTURE_UNSUPPORTED', `${backendId} cannot express posture ${posture} (its descriptor maps: ${known})`, {
            hint: 'choose one of the mapped postures, or add it to the descriptor\'s postureMap',
        });
    }
    return target;
}
/** The child's environment: the session's env plus the descriptor's `env`, with ${VAR} resolved. */
export function childEnv(base, extra) {
    const env = { ...base };
    for (const [key, value] of Object.entries(extra ?? {})) {
        env[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name) => base[name] ?? '');
    }
    return env;
}
/**
 * A posture's `settings.env`: variables set at launch for agents whose permission rules come
 * from the environment (OpenCode's OPENCODE_PERMISSION). Objects are passed as JSON.
 */
export function postureEnv(target) {
    const env = target?.settings?.env;
    if (typeof env !== 'object' || env === null)
        return {};
    const out = {};
    for (const [key, value] of Object.entries(env))
        out[key] = typeof value === 'string' ? value : JSON.stringify(value);
    return out;
}
