/**
 * neo's memory of a repository (seed 003, "Memory + MCP"): the decision store the flow's gates
 * feed, one SQLite database per repository under NEO_HOME.
 */
export { openMemory, openConfinedMemory, migrate, BUSY_TIMEOUT_MS, type MemoryDb, type Database } from './database.js';
export { MIGRATIONS } from './migrations.js';
export { repositoryRoot, memoryDir, memoryOff, CONFINED_MEMORY_DIR } from './repo-key.js';
export { DECISION_KINDS, DECISION_CAPS, type Decision, type DecisionInput, type DecisionKind } from './decision.js';
export { recordDecision, queryDecisions, filesOfRun, ftsWords, type DecisionQuery } from './decision-store.js';
export { renderDecisionBlock, decisionLine, MAX_DECISION_BLOCK_BYTES } from './decision-block.js';
export { filesNamedIn } from './files-named.js';
export { symbolsOfDiff } from './diff-symbols.js';
export {
  noteDecision,
  decisionBriefBlock,
  mapBriefBlock,
  handoffBriefBlock,
  runDecisions,
  openRunMemory,
  closeRunMemory,
} from './run-memory.js';
export {
  writeHandoff,
  readHandoff,
  renderHandoffBlock,
  handoffDir,
  HANDOFF_VERSION,
  MAX_HANDOFF_BLOCK_BYTES,
  type Handoff,
} from './handoff.js';
export { serveMemoryMcp, callTool, MCP_SERVER_NAME } from './mcp/server.js';
export { MEMORY_TOOLS } from './mcp/tools.js';
export type { MemoryTool, ToolContext } from './mcp/tool.js';
export {
  indexRepository,
  findSymbol,
  findRefs,
  callers,
  callees,
  imports,
  testsFor,
  outline,
  repoMap,
  rankFiles,
  languageOf,
  type IndexReport,
  type SymbolRow,
  type RefRow,
} from './graph/index.js';
