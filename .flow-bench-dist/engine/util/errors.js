/**
 * The error vocabulary shared by every area. An error carries a stable UPPER_SNAKE `code`
 * (area-prefixed: DEF_, SESSION_, POSTURE_, TRANSPORT_, FLOW_, STORE_, CLI_) and an optional
 * `hint` that tells the user what to do. The CLI maps error classes to exit codes in one place.
 */
export class NeoError extends Error {
    code;
    hint;
    constructor(code, message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.name = new.target.name;
        this.code = code;
        this.hint = options.hint;
    }
    /** A plain, serializable view (for `--json` output and op results). */
    toJSON() {
        return this.hint === undefined
            ? { code: this.code, message: this.message }
            : { code: this.code, message: this.message, hint: this.hint };
    }
}
/** Bad command-line usage or bad definitions: the user must change their input (exit 2). */
export class UsageError extends NeoError {
}
/** The work itself failed (a flow step, a gate, validation of a run): exit 1. */
export class FailureError extends NeoError {
}
/** The user interrupted the process (Ctrl-C): exit 130. */
export class InterruptedError extends NeoError {
    constructor(message = 'interrupted') {
        super('CLI_INTERRUPTED', message);
    }
}
/** Narrows an unknown thrown value to a message, without trusting its shape. */
export function errorMessage(error) {
    if (error instanceof Error)
        return error.message;
    return typeof error === 'string' ? error : JSON.stringify(error);
}
