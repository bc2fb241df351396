import type { Backend } from '../generated/backend.js';
import type { Capability } from '../generated/capability.js';
import type { Config } from '../generated/config.js';
import type { Flow } from '../generated/flow.js';
import type { Persona } from '../generated/persona.js';
import type { Policy } from '../generated/policy.js';
import type { Routing } from '../generated/routing.js';
import type { SourceSpan } from './diagnostic.js';
import type { DefinitionKind } from './kinds.js';
import type { YamlSource } from './source.js';

/** Where definitions come from, lowest precedence first; `path` is a file named on the command line. */
export const LAYERS = ['packaged', 'user', 'project', 'path'] as const;
export type Layer = (typeof LAYERS)[number];

/** The schema-typed data of each kind. */
export interface KindData {
  persona: Persona;
  policy: Policy;
  backend: Backend;
  capability: Capability;
  routing: Routing;
  flow: Flow;
  config: Config;
}

/** One loaded, schema-valid definition with its origin. Immutable once built. */
export interface Definition<K extends DefinitionKind = DefinitionKind> {
  readonly kind: K;
  readonly id: string;
  readonly layer: Layer;
  readonly file: string;
  readonly data: KindData[K];
  /** Markdown body (personas only): the persona's instructions. */
  readonly body?: string;
  /** Parsed source, for positioning later checks. */
  readonly source: YamlSource;
  /** Span of the id (the `name`/`id` value, else the file start). */
  readonly idSpan: SourceSpan;
  /** sha256 of the file text. */
  readonly digest: string;
  /** False for a definition of an untrusted project layer: it may only narrow (see privileged.ts). */
  readonly trusted: boolean;
  /** Privileged fields dropped because the project is not trusted. */
  readonly ignoredFields: readonly string[];
  /**
   * Why `ignoredFields` were dropped when the project is trusted but this file's privileged
   * content is not what `neo trust` pinned (pins.ts); absent when the project is not trusted.
   */
  readonly untrustedBecause?: string;
}

export type AnyDefinition = { [K in DefinitionKind]: Definition<K> }[DefinitionKind];
