export { hasErrors, sortDiagnostics, pointerToFieldPath } from './diagnostic.js';
export { formatDiagnostic, formatDiagnostics, summarizeDiagnostics } from './format.js';
export { DEFINITION_KINDS, KIND_INFO, isDefinitionKind } from './kinds.js';
export { LAYERS } from './definition.js';
export { DefinitionSet } from './definition-set.js';
export { DefinitionLoader, loadDefinitions } from './loader.js';
export { loadDefinitionFile, loadDefinitionText } from './load-file.js';
export { kindOfPath, findRepoRoot } from './discover.js';
export { TrustStore } from './trust.js';
export { POSTURES, DEFAULT_MAX_POSTURE, postureRank, postureWithin, minPosture, isPosture, narrowKnobs, toList, } from './policy.js';
export { personaView, PERMISSION_MODE_POSTURE } from './persona-view.js';
export { stepKinds, transitiveNeeds, findCycles } from './flow-check.js';
/** Starts a hot-reload watcher (see watch.ts). Loaded lazily: chokidar costs start-up time. */
export async function watchDefinitions(...args) {
    const { watchDefinitions: start } = await import('./watch.js');
    return start(...args);
}
export { schemaPath, SCHEMA_FILES } from './schema-files.js';
export { effectivePersonaKnobs, policyKnobs } from './effective.js';
export { checkAgainstSchema, schemaErrorsToDiagnostics, precompiledValidators } from './schema-check.js';
export { YamlSource } from './source.js';
export { splitFrontmatter } from './frontmatter.js';
export { readDefinitionText } from './read-text.js';
export { durationMs } from './policy.js';
