/**
 * A secret value read from the environment by `${NAME}` reference. It serializes and prints as
 * its reference, never its value, so a settings object that reaches a log, an event or a store
 * by accident leaks nothing; only a provider's request headers call {@link Secret.reveal}.
 */
import { inspect } from 'node:util';
export class Secret {
    /** The environment variable it came from. */
    name;
    #value;
    constructor(name, value) {
        this.name = name;
        this.#value = value;
        Object.freeze(this);
    }
    reveal() {
        return this.#value;
    }
    toJSON() {
        return `\${${this.name}}`;
    }
    toString() {
        return `\${${this.name}}`;
    }
    [inspect.custom]() {
        return `Secret(\${${this.name}})`;
    }
}
