import { join } from 'node:path';
import { codexHome } from './codex-home.js';
import type { Sandbox } from './sandbox.js';

/** Claude Code against the scripted server's Anthropic Messages API, with its own config dir. */
export function claudeEnv(box: Sandbox, url: string, bin: string): NodeJS.ProcessEnv {
  return {
    ...box.baseEnv,
    NEO_CLAUDE_CODE_BIN: bin,
    CLAUDE_CONFIG_DIR: join(box.home, '.claude'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-ant-neo-scripted',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
}

/** Codex with a CODEX_HOME that points it at the scripted server's Responses API. */
export async function codexEnv(box: Sandbox, url: string, bin: string): Promise<NodeJS.ProcessEnv> {
  return { ...box.baseEnv, NEO_CODEX_BIN: bin, ...(await codexHome(box.home, url)) };
}

/** Copilot BYOK over Chat Completions: no GitHub login, nothing leaves the machine. */
export function copilotEnv(box: Sandbox, url: string, bin: string): NodeJS.ProcessEnv {
  return {
    ...box.baseEnv,
    NEO_COPILOT_BIN: bin,
    COPILOT_HOME: join(box.home, '.copilot'),
    COPILOT_OFFLINE: 'true',
    COPILOT_AUTO_UPDATE: 'false',
    COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_WIRE_API: 'completions',
    COPILOT_PROVIDER_API_KEY: 'neo-scripted',
    COPILOT_MODEL: 'gpt-5.4',
  };
}
