/**
 * neo's own agent: a policy-free loop over a model provider, the providers (Anthropic Messages,
 * OpenAI Responses, OpenAI-compatible Chat Completions, Gemini), settings from neo.yaml, the
 * built-in coding tools, project context (AGENTS.md, skills) and compaction. The `neo` backend
 * (engine/transports/neo) and the llm decider are built on it.
 */
export {
  Agent,
  DEFAULT_MAX_TURNS,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_TOOL_OUTPUT_MAX_BYTES,
  type AgentOptions,
  type SendOptions,
} from './loop.js';
export type { AgentLoopEvent, TurnResult } from './loop-events.js';
export {
  mergeRoles,
  textOf,
  toolUsesOf,
  type ContentBlock,
  type Message,
  type ModelRequest,
  type ModelResponse,
  type PinKind,
  type ProviderApi,
  type ReasoningBlock,
  type StopReason,
  type StreamSink,
  type TextBlock,
  type ToolResultBlock,
  type ToolSpec,
  type ToolUseBlock,
} from './messages.js';
export { addUsage, emptyUsage, type AgentUsage } from './usage.js';
export { AgentError, ModelError, ModelHttpError, formatMs } from './errors.js';
export { capText } from './output-cap.js';
export {
  ToolInputError,
  requireString,
  optionalString,
  optionalInt,
  optionalBool,
  type AgentTool,
  type ApprovalDecision,
  type ToolApprover,
  type ToolContext,
  type ToolEffect,
  type ToolResult,
} from './tool.js';
export {
  createProvider,
  anthropicBody,
  responsesBody,
  chatBody,
  geminiBody,
  type CompleteOptions,
  type HttpProviderConfig,
  type Provider,
} from './providers/index.js';
export { DEFAULT_RETRY, openWithRetry, type RetryHooks, type RetryPolicy } from './http/retry.js';
export { httpErrorLine, parseErrorBody, retryAfterMs } from './http/http-error.js';
export { SseDecoder, type SseEvent } from './http/sse.js';
export { postStream, type OpenResponse, type PostRequest } from './http/stream-request.js';
export { loadAgentSettings, type LoadSettingsOptions } from './settings/load-settings.js';
export {
  SETTING_DEFAULTS,
  SUBAGENT_DEFAULTS,
  PRUNER_DEFAULTS,
  type AgentSettings,
  type ProviderSettings,
  type PrunerSettings,
  type SubagentBudgets,
} from './settings/agent-settings.js';
export { resolveModel, isModelClass } from './settings/resolve-model.js';
export { parseDotenv } from './settings/dotenv.js';
export { readDotenvLayers, type DotenvLayers } from './settings/dotenv-layers.js';
export { Secret } from './settings/secret.js';
export { BUILTIN_PROVIDERS } from './settings/builtin-providers.js';
export { secretRedactor } from './redact.js';
export {
  builtinTools,
  selectTools,
  TOOL_ALIASES,
  BackgroundShells,
  postureApprover,
  toolAsk,
  type GateReport,
  commandEnv,
  type CommandSandbox,
  globToRegExp,
  findRipgrep,
  type AskPermission,
  type BuiltinToolOptions,
  type ShellInfo,
} from './tools/index.js';
export { discoverAgentsMd, agentsMdSection, type ProjectInstructions } from './context/agents-md.js';
export { discoverSkills, loadSkill, skillCatalog, expandSkillMentions, type Skill } from './context/skills.js';
export { buildSystemPrompt, type SystemPromptParts } from './context/system-prompt.js';
export type { Compactor, CompactionInput, CompactionResult } from './compaction/compactor.js';
export {
  SummarizingCompactor,
  pinnedItems,
  renderTranscript,
  type SummarizingCompactorOptions,
} from './compaction/summarizing.js';
export { compactionSplit } from './compaction/split.js';
export { estimateTokens } from './compaction/estimate.js';
export {
  saveTranscript,
  loadTranscript,
  transcriptPath,
  TRANSCRIPT_FILE,
  type SavedTranscript,
} from './transcript-file.js';
export {
  connectMcpServers,
  readServerSpecs,
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  type McpServerReport,
  type McpSetup,
} from './mcp/index.js';
export { createConfiguredAgent, providerFromSettings, type ConfiguredAgentOptions } from './configured.js';
export { ContextPruner, restoreContextTool, RESTORE_TOOL } from './context/pruner.js';
export { EditJournal, type UndoReport } from './tools/edit-journal.js';
export { Checklist, renderChecklist, workflowTool, type ChecklistItem } from './tools/workflow.js';
export {
  Supervisor,
  totalUsage,
  type ChildKind,
  type ChildOutcome,
  type ChildSpec,
  type SpawnRequest,
  type SupervisorOptions,
} from './subagent/supervisor.js';
export { taskTool, TASK_TOOL } from './subagent/task-tool.js';
