import { contentHash } from '../util/content-hash.js';
import { DEFINITION_KINDS } from './kinds.js';
/**
 * An immutable, content-hashed set of definitions: the winners of layering, by kind and id.
 * A run keeps the set it started with; hot reload publishes a new one.
 */
export class DefinitionSet {
    hash;
    #byKind = new Map();
    /** Definitions a higher layer overrode, kept to show where an id also exists. */
    shadowed;
    /** The owner policy (`$NEO_HOME/policy.yaml`), which caps every other layer. */
    ownerPolicy;
    /** neo.yaml files, lowest layer first. */
    configs;
    constructor(init) {
        for (const kind of DEFINITION_KINDS)
            this.#byKind.set(kind, new Map());
        for (const definition of init.definitions)
            this.#byKind.get(definition.kind).set(definition.id, definition);
        this.shadowed = init.shadowed ?? [];
        this.ownerPolicy = init.ownerPolicy;
        this.configs = init.configs ?? [];
        const parts = [];
        for (const definition of [...this.all(), ...(this.ownerPolicy ? [this.ownerPolicy] : []), ...this.configs]) {
            parts.push(`${definition.kind}:${definition.id}:${definition.layer}:${definition.digest}`);
        }
        this.hash = contentHash(...parts.sort());
        Object.freeze(this);
    }
    get(kind, id) {
        return this.#byKind.get(kind)?.get(id);
    }
    has(kind, id) {
        return this.#byKind.get(kind)?.has(id) ?? false;
    }
    /** Definitions of one kind, sorted by id. */
    list(kind) {
        return [...(this.#byKind.get(kind)?.values() ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));
    }
    ids(kind) {
        return [...(this.#byKind.get(kind)?.keys() ?? [])].sort();
    }
    /** Every winning definition. */
    all() {
        return DEFINITION_KINDS.flatMap((kind) => this.list(kind));
    }
    /** Definitions of `kind`/`id` that a higher layer overrode, lowest first. */
    shadowedBy(kind, id) {
        return this.shadowed.filter((d) => d.kind === kind && d.id === id);
    }
    /** What changed from `previous` to this set. */
    diff(previous) {
        const result = { added: [], removed: [], changed: [] };
        for (const kind of DEFINITION_KINDS) {
            const before = previous.#byKind.get(kind);
            const after = this.#byKind.get(kind);
            for (const [id, definition] of after) {
                const old = before.get(id);
                if (old === undefined)
                    result.added.push({ kind, id });
                else if (old.digest !== definition.digest || old.file !== definition.file)
                    result.changed.push({ kind, id });
            }
            for (const id of before.keys())
                if (!after.has(id))
                    result.removed.push({ kind, id });
        }
        return result;
    }
}
