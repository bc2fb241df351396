/** Provider adapters by wire API. */
import type { HttpProviderConfig, Provider } from './provider.js';
import { AnthropicProvider } from './anthropic.js';
import { GeminiProvider } from './gemini.js';
import { OpenAIChatProvider } from './openai-chat.js';
import { OpenAIResponsesProvider } from './openai-responses.js';

export type { CompleteOptions, HttpProviderConfig, Provider } from './provider.js';
export { anthropicBody } from './anthropic.js';
export { responsesBody } from './openai-responses.js';
export { chatBody } from './openai-chat.js';
export { geminiBody, geminiSchema } from './gemini.js';
export { BlockAssembler } from './block-assembler.js';

/** The adapter for a provider's API. */
export function createProvider(config: HttpProviderConfig): Provider {
  switch (config.api) {
    case 'anthropic':
      return new AnthropicProvider(config);
    case 'openai-responses':
      return new OpenAIResponsesProvider(config);
    case 'openai-chat':
      return new OpenAIChatProvider(config);
    case 'gemini':
      return new GeminiProvider(config);
  }
}
