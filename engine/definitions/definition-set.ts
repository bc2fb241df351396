import { contentHash } from '../util/content-hash.js';
import { UsageError } from '../util/errors.js';
import type { AnyDefinition, Definition } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { formatDiagnostics } from './format.js';
import { DEFINITION_KINDS, type DefinitionKind } from './kinds.js';

/** What changed between two definition sets. */
export interface DefinitionSetDiff {
  added: Array<{ kind: DefinitionKind; id: string }>;
  removed: Array<{ kind: DefinitionKind; id: string }>;
  changed: Array<{ kind: DefinitionKind; id: string }>;
}

/**
 * A set's hash worked out before (the build's, for the packaged layer alone: packaged-snapshot.ts),
 * with the exact text it hashed: a set whose hash input is the same text has the same hash, without
 * hashing (the first hash of a process loads `node:crypto`, most of what a cold `neo validate`
 * spends on it).
 */
export interface KnownSetHash {
  input: string;
  hash: string;
}

/**
 * An immutable, content-hashed set of definitions: the winners of layering, by kind and id.
 * A run keeps the set it started with; hot reload publishes a new one.
 */
export class DefinitionSet {
  readonly hash: string;
  /** What {@link hash} hashes: one line per definition, sorted (kept for the build's snapshot). */
  readonly #hashInput: string;
  readonly #byKind = new Map<DefinitionKind, ReadonlyMap<string, AnyDefinition>>();
  /** Definitions a higher layer overrode, kept to show where an id also exists. */
  readonly shadowed: readonly AnyDefinition[];
  readonly #ownerPolicy: Definition<'policy'> | undefined;
  /** The owner policy file's errors when it exists but does not load (then {@link ownerPolicy} throws). */
  readonly ownerPolicyErrors: readonly Diagnostic[];
  /** neo.yaml files, lowest layer first. */
  readonly configs: readonly Definition<'config'>[];
  /** What an untrusted project layer set and neo ignored, one warning each (`DEF_UNTRUSTED_FIELD`). */
  readonly untrusted: readonly Diagnostic[];

  constructor(init: {
    definitions: readonly AnyDefinition[];
    shadowed?: readonly AnyDefinition[];
    ownerPolicy?: Definition<'policy'>;
    /** The owner policy file's errors when it exists but does not load. */
    ownerPolicyErrors?: readonly Diagnostic[];
    configs?: readonly Definition<'config'>[];
    untrusted?: readonly Diagnostic[];
    /** The hash of a set hashed before, used when this set hashes the same text. */
    known?: KnownSetHash;
  }) {
    for (const kind of DEFINITION_KINDS) this.#byKind.set(kind, new Map());
    for (const definition of init.definitions)
      (this.#byKind.get(definition.kind) as Map<string, AnyDefinition>).set(definition.id, definition);
    this.shadowed = init.shadowed ?? [];
    this.#ownerPolicy = init.ownerPolicy;
    this.ownerPolicyErrors = init.ownerPolicyErrors ?? [];
    this.configs = init.configs ?? [];
    this.untrusted = init.untrusted ?? [];
    const parts: string[] = [];
    if (this.ownerPolicyErrors.length > 0) parts.push(`owner-policy-invalid:${this.ownerPolicyErrors.length}`);
    for (const definition of [...this.all(), ...(this.#ownerPolicy ? [this.#ownerPolicy] : []), ...this.configs]) {
      // Trust changes what a definition means (its privileged fields), so it changes the hash.
      parts.push(
        `${definition.kind}:${definition.id}:${definition.layer}:${definition.digest}${definition.trusted ? '' : ':untrusted'}`,
      );
    }
    parts.sort();
    // contentHash ends each part with NUL, so this text is exactly the bytes it hashes.
    this.#hashInput = parts.map((part) => `${part}\0`).join('');
    this.hash = init.known?.input === this.#hashInput ? init.known.hash : contentHash(...parts);
    Object.freeze(this);
  }

  /** This set's hash with the text it hashed, to be given back as {@link KnownSetHash}. */
  get knownHash(): KnownSetHash {
    return { input: this.#hashInput, hash: this.hash };
  }

  /**
   * The owner policy (`$NEO_HOME/policy.yaml`), which caps every other layer; undefined when
   * there is none. An owner policy that exists but is invalid fails closed: reading it throws a
   * usage error with the file's diagnostics, so nothing that would run an agent runs uncapped.
   */
  get ownerPolicy(): Definition<'policy'> | undefined {
    this.assertOwnerPolicy();
    return this.#ownerPolicy;
  }

  /** Throws `DEF_OWNER_POLICY_INVALID` when the owner policy exists but is invalid (see {@link ownerPolicy}). */
  assertOwnerPolicy(): void {
    if (this.ownerPolicyErrors.length > 0) {
      const file = this.ownerPolicyErrors[0]!.span?.file ?? 'policy.yaml';
      throw new UsageError(
        'DEF_OWNER_POLICY_INVALID',
        `the owner policy ${file} is invalid, and neo runs no agent without it:\n${formatDiagnostics(this.ownerPolicyErrors)}`,
        { hint: 'fix the file (`neo validate` checks it), or remove it to run without an owner cap' },
      );
    }
  }

  get<K extends DefinitionKind>(kind: K, id: string): Definition<K> | undefined {
    return this.#byKind.get(kind)?.get(id) as Definition<K> | undefined;
  }

  has(kind: DefinitionKind, id: string): boolean {
    return this.#byKind.get(kind)?.has(id) ?? false;
  }

  /** Definitions of one kind, sorted by id. */
  list<K extends DefinitionKind>(kind: K): Definition<K>[] {
    return [...(this.#byKind.get(kind)?.values() ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1)) as Definition<K>[];
  }

  ids(kind: DefinitionKind): string[] {
    return [...(this.#byKind.get(kind)?.keys() ?? [])].sort();
  }

  /** Every winning definition. */
  all(): AnyDefinition[] {
    return DEFINITION_KINDS.flatMap((kind) => this.list(kind)) as AnyDefinition[];
  }

  /** Definitions of `kind`/`id` that a higher layer overrode, lowest first. */
  shadowedBy(kind: DefinitionKind, id: string): AnyDefinition[] {
    return this.shadowed.filter((d) => d.kind === kind && d.id === id);
  }

  /** What changed from `previous` to this set. */
  diff(previous: DefinitionSet): DefinitionSetDiff {
    const result: DefinitionSetDiff = { added: [], removed: [], changed: [] };
    for (const kind of DEFINITION_KINDS) {
      const before = previous.#byKind.get(kind)!;
      const after = this.#byKind.get(kind)!;
      for (const [id, definition] of after) {
        const old = before.get(id);
        if (old === undefined) result.added.push({ kind, id });
        else if (old.digest !== definition.digest || old.file !== definition.file) result.changed.push({ kind, id });
      }
      for (const id of before.keys()) if (!after.has(id)) result.removed.push({ kind, id });
    }
    return result;
  }
}
