/**
 * A secret value read from the environment by `${NAME}` reference. It serializes and prints as
 * its reference, never its value, so a settings object that reaches a log, an event or a store
 * by accident leaks nothing; only a provider's request headers call {@link Secret.reveal}.
 */
import { inspect } from 'node:util';

export class Secret {
  /** The environment variable it came from. */
  readonly name: string;
  readonly #value: string;

  constructor(name: string, value: string) {
    this.name = name;
    this.#value = value;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return `\${${this.name}}`;
  }

  toString(): string {
    return `\${${this.name}}`;
  }

  [inspect.custom](): string {
    return `Secret(\${${this.name}})`;
  }
}
