import { join } from 'node:path';
import { binaryEnvVar } from '../../../engine/transports/shared/binary.js';
import { DROID_MODEL, droidEnv, GEMINI_MODEL, geminiEnv, opencodeEnv } from './acp-configs.js';
import { codexHome } from './codex-home.js';
import type { Sandbox } from './sandbox.js';

/** How one installed CLI is pointed at a model server: its backend id, model and environment. */
export interface CliSetup {
  backend: string;
  model?: string;
  env: NodeJS.ProcessEnv;
}

/** The suite's CLIs by install id. */
export const CLI_IDS = ['claude', 'codex', 'opencode', 'copilot', 'droid', 'gemini'] as const;
export type CliId = (typeof CLI_IDS)[number];

/** The environment each CLI needs to talk to the model server at `url` (and nothing else). */
export async function cliSetup(id: CliId, box: Sandbox, url: string, bin: string): Promise<CliSetup> {
  switch (id) {
    case 'claude':
      return {
        backend: 'claude-code',
        model: 'claude-sonnet-4-5',
        env: {
          ...box.baseEnv,
          [binaryEnvVar('claude-code')]: bin,
          CLAUDE_CONFIG_DIR: join(box.home, '.claude'),
          ANTHROPIC_BASE_URL: url,
          ANTHROPIC_API_KEY: 'sk-ant-neo-scripted',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
        },
      };
    case 'codex':
      return {
        backend: 'codex',
        model: 'gpt-5.5',
        env: { ...box.baseEnv, [binaryEnvVar('codex')]: bin, ...(await codexHome(box.home, url)) },
      };
    case 'opencode':
      return { backend: 'opencode', env: await opencodeEnv(box, url, bin) };
    case 'droid':
      return { backend: 'droid', model: DROID_MODEL, env: await droidEnv(box, url, bin) };
    case 'gemini':
      return { backend: 'gemini', model: GEMINI_MODEL, env: await geminiEnv(box, url, bin) };
    case 'copilot':
      return {
        backend: 'copilot',
        env: {
          ...box.baseEnv,
          [binaryEnvVar('copilot')]: bin,
          COPILOT_HOME: join(box.home, '.copilot'),
          COPILOT_OFFLINE: 'true',
          COPILOT_AUTO_UPDATE: 'false',
          COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
          COPILOT_PROVIDER_TYPE: 'openai',
          COPILOT_PROVIDER_WIRE_API: 'completions',
          COPILOT_PROVIDER_API_KEY: 'neo-scripted',
          COPILOT_MODEL: 'gpt-5.4',
        },
      };
  }
}
