/**
 * neo's own agent: a policy-free loop over a model provider, the providers (Anthropic Messages,
 * OpenAI Responses, OpenAI-compatible Chat Completions, Gemini), settings from neo.yaml, the
 * built-in coding tools, project context (AGENTS.md, skills) and compaction. The `neo` backend
 * (engine/transports/neo) and the llm decider are built on it.
 */
export { Agent, DEFAULT_MAX_TURNS, DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_TOOL_OUTPUT_MAX_BYTES } from './loop.js';
export { mergeRoles, textOf, toolUsesOf, } from './messages.js';
export { addUsage, emptyUsage } from './usage.js';
export { AgentError, ModelError, ModelHttpError, formatMs } from './errors.js';
export { capText } from './output-cap.js';
export { ToolInputError, requireString, optionalString, optionalInt, optionalBool, } from './tool.js';
export { createProvider, anthropicBody, responsesBody, chatBody, geminiBody } from './providers/index.js';
export { DEFAULT_RETRY, openWithRetry } from './http/retry.js';
export { httpErrorLine, parseErrorBody, retryAfterMs } from './http/http-error.js';
export { SseDecoder } from './http/sse.js';
export { postStream } from './http/stream-request.js';
export { loadAgentSettings } from './settings/load-settings.js';
export { SETTING_DEFAULTS } from './settings/agent-settings.js';
export { resolveModel, isModelClass } from './settings/resolve-model.js';
export { parseDotenv } from './settings/dotenv.js';
export { Secret } from './settings/secret.js';
export { BUILTIN_PROVIDERS } from './settings/builtin-providers.js';
export { secretRedactor } from './redact.js';
export { builtinTools, selectTools, TOOL_ALIASES, BackgroundShells, postureApprover, postureDecision, killGroup, groupAlive, livingMembers, scrubbedEnv, globToRegExp, findRipgrep, } from './tools/index.js';
export { discoverAgentsMd, agentsMdSection } from './context/agents-md.js';
export { discoverSkills, loadSkill, skillCatalog, expandSkillMentions } from './context/skills.js';
export { buildSystemPrompt } from './context/system-prompt.js';
export { SummarizingCompactor, pinnedItems, renderTranscript } from './compaction/summarizing.js';
export { compactionSplit } from './compaction/split.js';
export { estimateTokens } from './compaction/estimate.js';
export { saveTranscript, loadTranscript, transcriptPath, TRANSCRIPT_FILE } from './transcript-file.js';
export { createConfiguredAgent, providerFromSettings } from './configured.js';
