/** What an incoming request asks for, decided from its method and path alone. */
export type Route =
  | { kind: 'anthropic' }
  | { kind: 'count-tokens' }
  | { kind: 'responses' }
  | { kind: 'chat' }
  | { kind: 'gemini'; model: string; action: 'generateContent' | 'streamGenerateContent' | 'countTokens' }
  | { kind: 'models'; gemini: boolean }
  | { kind: 'model'; id: string; gemini: boolean }
  | { kind: 'root' }
  | { kind: 'state' }
  | { kind: 'not-found' };

const GEMINI_CALL = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/**
 * Routes by path suffix, so a base URL with or without `/v1` (or any prefix) works:
 * `…/messages`, `…/messages/count_tokens`, `…/responses`, `…/chat/completions`,
 * `…/models/<m>:streamGenerateContent`, `GET …/models`, and `HEAD /` (Claude Code's preflight).
 */
export function route(method: string, path: string): Route {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (method === 'GET' && trimmed === '/_neo/state') return { kind: 'state' };
  if (trimmed === '/' && (method === 'GET' || method === 'HEAD')) return { kind: 'root' };
  if (method === 'POST') {
    if (trimmed.endsWith('/messages/count_tokens')) return { kind: 'count-tokens' };
    if (trimmed.endsWith('/messages')) return { kind: 'anthropic' };
    if (trimmed.endsWith('/responses')) return { kind: 'responses' };
    if (trimmed.endsWith('/chat/completions')) return { kind: 'chat' };
    const gemini = GEMINI_CALL.exec(trimmed);
    if (gemini)
      return { kind: 'gemini', model: decodeURIComponent(gemini[1]!), action: gemini[2] as 'generateContent' };
  }
  if (method === 'GET') {
    const isGemini = trimmed.includes('/v1beta/') || trimmed.startsWith('/v1beta');
    if (trimmed.endsWith('/models')) return { kind: 'models', gemini: isGemini };
    const one = /\/models\/([^/]+)$/.exec(trimmed);
    if (one) return { kind: 'model', id: decodeURIComponent(one[1]!), gemini: isGemini };
  }
  return { kind: 'not-found' };
}
