/**
 * Where a repository's memory lives, without loading the store: the surface the flow runtime
 * imports eagerly (a sandbox's binds are fixed synchronously, before any memory module loads).
 */
export { CONFINED_MEMORY_DIR, memoryDir, memoryOff, repositoryRoot } from '../repo-key.js';
