/** Anthropic `thinking.budget_tokens` per level. */
export const ANTHROPIC_THINKING_BUDGET = { low: 2048, medium: 8192, high: 16384, max: 32000 };
/** Gemini `thinkingConfig.thinkingBudget` per level. */
export const GEMINI_THINKING_BUDGET = { low: 1024, medium: 8192, high: 16384, max: 24576 };
/** OpenAI `reasoning.effort` / `reasoning_effort` per level. */
export const OPENAI_REASONING_EFFORT = { low: 'low', medium: 'medium', high: 'high', max: 'high' };
