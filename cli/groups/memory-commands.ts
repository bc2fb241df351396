/**
 * The memory group's command modules as one lazily loaded module (see learn-commands.ts).
 */
export * as memoryDecisions from '../commands/memory-decisions.js';
export * as memoryMcp from '../commands/memory-mcp.js';
export * as memoryIndex from '../commands/memory-index.js';
export * as memoryQuery from '../commands/memory-query.js';
export * as memoryMap from '../commands/memory-map.js';
