import type { AnyDefinition, Definition } from './definition.js';
import { LAYERS } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { DefinitionSet, type KnownSetHash } from './definition-set.js';
import type { FileLoad } from './load-file.js';
import { UNTRUSTED_CODE } from './privileged.js';
import { checkUntrustedSet, narrowUntrustedConfigs } from './untrusted-set.js';

/** Ids the layering gives a meaning of their own. */
const RESERVED_POLICY_IDS = new Set(['owner']);

/**
 * Layers loaded files into a {@link DefinitionSet}: a higher layer overrides a lower one by id,
 * and two files of one layer claiming the same id is an error showing both places. `known`: a set
 * hash worked out before (the packaged snapshot's), used if this set hashes the same text.
 */
export function buildDefinitionSet(
  loads: readonly FileLoad[],
  ownerPolicyFile?: string,
  known?: KnownSetHash,
): { set: DefinitionSet; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const winners = new Map<string, AnyDefinition>();
  const shadowed: AnyDefinition[] = [];
  const configs: Definition<'config'>[] = [];
  let ownerPolicy: Definition<'policy'> | undefined;
  const ownerPolicyErrors =
    ownerPolicyFile === undefined
      ? []
      : loads
          .filter((load) => load.file === ownerPolicyFile && load.definition === undefined)
          .flatMap((load) => load.diagnostics.filter((d) => d.severity === 'error'));

  const ordered = [...loads].sort((a, b) => LAYERS.indexOf(a.layer) - LAYERS.indexOf(b.layer));
  for (const load of ordered) {
    const definition = load.definition;
    if (definition === undefined) continue;
    if (definition.kind === 'config') {
      configs.push(definition);
      continue;
    }
    if (definition.kind === 'policy' && ownerPolicyFile !== undefined && definition.file === ownerPolicyFile) {
      ownerPolicy = definition;
      continue;
    }
    if (definition.kind === 'policy' && RESERVED_POLICY_IDS.has(definition.id)) {
      diagnostics.push({
        code: 'DEF_RESERVED_ID',
        severity: 'error',
        message: `policy id \`${definition.id}\` is reserved for the owner policy ($NEO_HOME/policy.yaml)`,
        span: definition.idSpan,
        hint: 'choose another id',
      });
      continue;
    }
    const key = `${definition.kind}\0${definition.id}`;
    const existing = winners.get(key);
    if (existing !== undefined && existing.layer === definition.layer) {
      diagnostics.push({
        code: 'DEF_DUPLICATE_ID',
        severity: 'error',
        message: `${definition.kind} id \`${definition.id}\` is defined twice in the ${definition.layer} layer`,
        span: definition.idSpan,
        hint: 'rename one of them; ids must be unique within a layer',
        related: [{ message: 'first defined here', span: existing.idSpan }],
      });
      continue;
    }
    if (existing !== undefined) shadowed.push(existing);
    winners.set(key, definition);
  }
  const narrowed = narrowUntrustedConfigs(configs);
  diagnostics.push(...narrowed.diagnostics);
  const init = {
    definitions: [...winners.values()],
    shadowed,
    ...(ownerPolicy ? { ownerPolicy } : {}),
    ...(ownerPolicyErrors.length > 0 ? { ownerPolicyErrors } : {}),
    configs: narrowed.configs,
    ...(known ? { known } : {}),
  };
  const fileDrops = loads.flatMap((load) => load.diagnostics.filter((d) => d.code === UNTRUSTED_CODE));
  let set = new DefinitionSet(init);
  if (fileDrops.length > 0 || set.all().some((d) => !d.trusted) || narrowed.configs.some((c) => !c.trusted)) {
    // Rules that need the layered set (what an untrusted file overrides, the policy it names).
    const setDrops = checkUntrustedSet(set);
    diagnostics.push(...setDrops);
    set = new DefinitionSet({ ...init, untrusted: [...fileDrops, ...narrowed.diagnostics, ...setDrops] });
  }
  return { set, diagnostics };
}
