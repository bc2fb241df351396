/**
 * Where a repository's memory lives, and the run's hand-off file in it, without loading the
 * store: the surface the flow runtime imports eagerly (a sandbox's binds are fixed synchronously,
 * before any memory module loads; a run that recorded no decision writes its hand-off without
 * SQLite).
 */
export { CONFINED_MEMORY_DIR, hasMemoryDatabase, memoryDir, memoryOff, repositoryRoot } from '../repo-key.js';
export { writeHandoff } from '../handoff.js';
