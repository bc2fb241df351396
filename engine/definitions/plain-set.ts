import type { AnyDefinition, Definition } from './definition.js';
import { DefinitionSet } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { makeDefinition, sourceOf } from './load-file.js';
import type { LoadResult } from './loader.js';
import { readDefinitionText } from './read-text.js';
import { defined } from '../util/defined.js';

/** A definition without its parsed source: what crosses a thread boundary. */
export type PlainDefinition = Omit<AnyDefinition, 'source'>;

/** A {@link LoadResult} as structured-clonable data. */
export interface PlainLoad {
  definitions: PlainDefinition[];
  shadowed: PlainDefinition[];
  ownerPolicy?: PlainDefinition;
  configs: PlainDefinition[];
  /** What an untrusted project set and neo ignored. */
  untrusted: Diagnostic[];
  /** An invalid owner policy's errors: the restored set fails closed as the original does. */
  ownerPolicyErrors: Diagnostic[];
  diagnostics: Diagnostic[];
}

/** The plain form of a load (definitions' `source` is a lazy getter and does not travel). */
export function plainLoad({ set, diagnostics }: LoadResult): PlainLoad {
  // Reading the owner policy throws when it is invalid; its errors travel instead.
  const ownerPolicy = set.ownerPolicyErrors.length > 0 ? undefined : set.ownerPolicy;
  return {
    definitions: set.all().map(plain),
    shadowed: set.shadowed.map(plain),
    ...(ownerPolicy === undefined ? {} : { ownerPolicy: plain(ownerPolicy) }),
    configs: set.configs.map(plain),
    untrusted: [...set.untrusted],
    ownerPolicyErrors: [...set.ownerPolicyErrors],
    diagnostics,
  };
}

/**
 * The set back from its plain form. A definition's source is parsed again only if something
 * asks for a position, as for definitions restored from the packaged snapshot.
 */
export function setFromPlain(load: PlainLoad): LoadResult {
  const set = new DefinitionSet({
    definitions: load.definitions.map(restore),
    shadowed: load.shadowed.map(restore),
    ...(load.ownerPolicy === undefined ? {} : { ownerPolicy: restore(load.ownerPolicy) as Definition<'policy'> }),
    configs: load.configs.map(restore) as Definition<'config'>[],
    untrusted: load.untrusted,
    ownerPolicyErrors: load.ownerPolicyErrors,
  });
  return { set, diagnostics: load.diagnostics };
}

function plain(definition: AnyDefinition): PlainDefinition {
  const { kind, id, layer, file, data, body, idSpan, digest, trusted, ignoredFields, untrustedBecause } = definition;
  return {
    kind,
    id,
    layer,
    file,
    data,
    ...defined({ body }),
    idSpan,
    digest,
    trusted,
    ignoredFields,
    ...defined({ untrustedBecause }),
  } as PlainDefinition;
}

function restore(definition: PlainDefinition): AnyDefinition {
  const { body, ...fields } = definition;
  return makeDefinition({ ...fields, body }, () => {
    const read = readDefinitionText(definition.file);
    return sourceOf(definition.file, 'text' in read ? read.text : '', definition.kind);
  });
}
