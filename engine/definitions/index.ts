/** Definitions: discover, parse with positions, validate, resolve, layer, watch. */
export type { Diagnostic, SourceSpan, SourcePosition } from './diagnostic.js';
export { hasErrors, sortDiagnostics, pointerToFieldPath } from './diagnostic.js';
export { formatDiagnostic, formatDiagnostics, summarizeDiagnostics } from './format.js';
export { DEFINITION_KINDS, KIND_INFO, isDefinitionKind, type DefinitionKind } from './kinds.js';
export { LAYERS, type Layer, type Definition, type AnyDefinition, type KindData } from './definition.js';
export { DefinitionSet, type DefinitionSetDiff } from './definition-set.js';
export { DefinitionLoader, loadDefinitions, type LoaderOptions, type LoadResult } from './loader.js';
export { loadDefinitionsOffThread } from './off-thread.js';
export { loadDefinitionFile, loadDefinitionText, type FileLoad } from './load-file.js';
export { kindOfPath, findRepoRoot, type LayerRoots } from './discover.js';
export { TrustStore } from './trust.js';
export { pinProject } from './pin-project.js';
export { DOTENV_PIN_KEY, dotenvDigest, dotenvTrust, isUnpinnedWarning, type Pins, type ProjectTrust } from './pins.js';
export {
  DEFAULT_MAX_ROUNDS,
  narrowKnobs,
  type SessionKnobs,
  type KnobProvenance,
  type KnobConflict,
} from './policy.js';
export { personaView, PERMISSION_MODE_POSTURE, type PersonaView } from './persona-view.js';
export { stepKinds, transitiveNeeds, findCycles, type StepKind } from './flow-check.js';
export type { DefinitionWatcher, ReloadEvent, WatchOptions } from './watch.js';

/** Starts a hot-reload watcher (see watch.ts). Loaded lazily: chokidar costs start-up time. */
export async function watchDefinitions(
  ...args: Parameters<typeof import('./watch.js').watchDefinitions>
): Promise<import('./watch.js').DefinitionWatcher> {
  const { watchDefinitions: start } = await import('./watch.js');
  return start(...args);
}
export { modelineRef, schemaPath, schemaUrl, SCHEMA_FILES } from './schema-files.js';
export type { Backend } from '../generated/backend.js';
export type { Persona } from '../generated/persona.js';
export type { Policy } from '../generated/policy.js';
export type { Flow, Step } from '../generated/flow.js';
export type { Capability } from '../generated/capability.js';
export type { Routing } from '../generated/routing.js';
export type { Config } from '../generated/config.js';
export type { Posture, Effort, ModelClass, Budgets, CostProfile } from '../generated/common.js';
export {
  effectivePersonaKnobs,
  namedPolicyKnobs,
  overriddenTrusted,
  personaDenyRules,
  personaKnobLayers,
  policyKnobs,
  type ClarifyRule,
  type EffectiveKnobs,
  type KnobLayer,
} from './effective.js';
export { TRUST_HINT, UNTRUSTED_CEILING, UNTRUSTED_CODE } from './privileged.js';
export { untrustedNotice } from './untrusted-report.js';
export { checkAgainstSchema, schemaErrorsToDiagnostics, precompiledValidators } from './schema-check.js';
export { YamlSource } from './source.js';
export { ACTION_KEYS, checkScriptSource } from './script-text.js';
export { splitFrontmatter } from './frontmatter.js';
export { pathKind, readDefinitionText, type PathKind } from './read-text.js';
