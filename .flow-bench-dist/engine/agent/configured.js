import { SummarizingCompactor } from './compaction/summarizing.js';
import { DEFAULT_RETRY } from './http/retry.js';
import { Agent } from './loop.js';
import { createProvider } from './providers/index.js';
import { secretRedactor } from './redact.js';
import { resolveModel } from './settings/resolve-model.js';
/** The provider the settings describe. */
export function providerFromSettings(settings, hooks) {
    const p = settings.provider;
    return createProvider({
        name: p.name,
        api: p.api,
        baseUrl: p.baseUrl,
        ...(p.apiKey !== undefined ? { apiKey: p.apiKey } : {}),
        ...(p.credentialEnv !== undefined ? { credentialEnv: p.credentialEnv } : {}),
        headers: p.headers,
        headersTimeoutMs: settings.headersTimeoutMs,
        idleTimeoutMs: settings.idleTimeoutMs,
        retry: { ...DEFAULT_RETRY, maxRetries: settings.maxRetries },
        ...(hooks !== undefined ? { hooks } : {}),
    });
}
/** An {@link Agent} wired from frozen settings. */
export function createConfiguredAgent(options) {
    const { settings, descriptor, retryHooks, provider: given, model: requested, ...rest } = options;
    const provider = given ?? providerFromSettings(settings, retryHooks);
    return new Agent({
        ...rest,
        provider,
        model: resolveModel(requested, settings, descriptor),
        maxTurns: settings.maxTurns,
        maxOutputTokens: settings.maxOutputTokens,
        toolOutputMaxBytes: settings.toolOutputMaxBytes,
        compactor: new SummarizingCompactor({ provider, thresholdTokens: settings.compactAtTokens, keepTurns: settings.keepTurns }),
        redact: secretRedactor(settings.secrets),
    });
}
