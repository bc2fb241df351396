export const BUILTIN_PROVIDERS = {
    anthropic: { api: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: '${ANTHROPIC_API_KEY}' },
    openai: { api: 'openai-responses', baseUrl: 'https://api.openai.com/v1', apiKey: '${OPENAI_API_KEY}' },
    openrouter: { api: 'openai-chat', baseUrl: 'https://openrouter.ai/api/v1', apiKey: '${OPENROUTER_API_KEY}' },
    gemini: { api: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com', apiKey: '${GEMINI_API_KEY}' },
    ollama: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1' },
    lmstudio: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:1234/v1' },
};
/** The variable a built-in provider's key comes from, to pick a default provider by what is set. */
export const DEFAULT_PROVIDER_ORDER = ['anthropic', 'openai', 'gemini', 'openrouter'];
/** The default base URL of each API, for a configured provider that names none. */
export const DEFAULT_BASE_URL = {
    anthropic: 'https://api.anthropic.com',
    'openai-responses': 'https://api.openai.com/v1',
    'openai-chat': 'https://api.openai.com/v1',
    gemini: 'https://generativelanguage.googleapis.com',
};
