import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from './sandbox.js';

/**
 * OpenCode: an OPENCODE_CONFIG file (kept outside the repo) with an openai-compatible provider
 * pointing at the scripted server, plus the switches that stop its network calls and plugins.
 * No `permission` key: the adapter sets permissions per posture.
 */
export async function opencodeEnv(box: Sandbox, url: string, bin: string): Promise<NodeJS.ProcessEnv> {
  const config = join(box.root, 'opencode.json');
  await writeFile(
    config,
    JSON.stringify({
      provider: {
        neo: {
          npm: '@ai-sdk/openai-compatible',
          name: 'neo model server',
          options: { baseURL: `${url}/v1`, apiKey: 'neo-scripted' },
          models: { scripted: { name: 'Scripted', tool_call: true, limit: { context: 200000, output: 8192 } } },
        },
      },
      model: 'neo/scripted',
      small_model: 'neo/scripted',
      autoupdate: false,
      share: 'disabled',
    }),
  );
  return {
    ...box.baseEnv,
    NEO_OPENCODE_BIN: bin,
    OPENCODE_CONFIG: config,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
  };
}

/** The model id droid gives the first BYOK custom model named "Scripted". */
export const DROID_MODEL = 'custom:Scripted-0';

/**
 * Droid: a BYOK custom model in ~/.factory/settings.json over Chat Completions. In ACP mode droid
 * asks for a login before session/new unless FACTORY_API_KEY is set; any value passes that check,
 * and with the custom model selected no request goes to Factory's service.
 */
export async function droidEnv(box: Sandbox, url: string, bin: string): Promise<NodeJS.ProcessEnv> {
  await mkdir(join(box.home, '.factory'), { recursive: true });
  await writeFile(
    join(box.home, '.factory', 'settings.json'),
    JSON.stringify({
      customModels: [
        {
          model: 'scripted',
          displayName: 'Scripted',
          baseUrl: `${url}/v1`,
          apiKey: 'neo-scripted',
          provider: 'generic-chat-completion-api',
          maxOutputTokens: 8192,
        },
      ],
    }),
  );
  return { ...box.baseEnv, NEO_DROID_BIN: bin, FACTORY_API_KEY: 'fk-neo-scripted' };
}

/**
 * Gemini CLI: a Gemini API key against the scripted server's Gemini API (GOOGLE_GEMINI_BASE_URL may
 * point at loopback over plain http), selected as the auth type in ~/.gemini/settings.json.
 */
/** A model id Gemini CLI 0.61 offers over ACP; naming one skips its model router (extra requests). */
export const GEMINI_MODEL = 'gemini-2.5-pro';

export async function geminiEnv(box: Sandbox, url: string, bin: string): Promise<NodeJS.ProcessEnv> {
  await mkdir(join(box.home, '.gemini'), { recursive: true });
  await writeFile(
    join(box.home, '.gemini', 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
  );
  return { ...box.baseEnv, NEO_GEMINI_BIN: bin, GEMINI_API_KEY: 'neo-scripted', GOOGLE_GEMINI_BASE_URL: url };
}
