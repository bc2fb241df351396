import { recordDecisionTool, runStateTool, searchDecisions } from './decision-tools.js';
import { fileOutlineTool, findSymbolTool, relatedCodeTool, repoMapTool, testsForTool } from './graph-tools.js';
import type { MemoryTool } from './tool.js';

/** Every tool `neo memory mcp` serves, in the order tools/list gives them. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  findSymbolTool,
  relatedCodeTool,
  testsForTool,
  searchDecisions,
  recordDecisionTool,
  repoMapTool,
  fileOutlineTool,
  runStateTool,
];
