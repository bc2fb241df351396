/**
 * How neo's four effort levels reach each API. Anthropic and Gemini take a thinking budget in
 * tokens; the OpenAI APIs take a named level, and `max` sends their highest (`high`).
 */
import type { Effort } from '../../definitions/index.js';

/** Anthropic `thinking.budget_tokens` per level. */
export const ANTHROPIC_THINKING_BUDGET: Record<Effort, number> = { low: 2048, medium: 8192, high: 16384, max: 32000 };

/** Gemini `thinkingConfig.thinkingBudget` per level. */
export const GEMINI_THINKING_BUDGET: Record<Effort, number> = { low: 1024, medium: 8192, high: 16384, max: 24576 };

/** OpenAI `reasoning.effort` / `reasoning_effort` per level. */
export const OPENAI_REASONING_EFFORT: Record<Effort, 'low' | 'medium' | 'high'> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  max: 'high',
};
