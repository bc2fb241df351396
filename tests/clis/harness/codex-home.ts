import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A CODEX_HOME whose config.toml points codex at the scripted model server over the Responses
 * API, with retries off (a scripted error is seen at once) and the plugin sync that would try
 * github.com and chatgpt.com switched off.
 */
export async function codexHome(
  home: string,
  url: string,
  model = 'gpt-5.5',
): Promise<{ CODEX_HOME: string; NEO_MODEL_API_KEY: string }> {
  const dir = join(home, '.codex');
  await mkdir(dir, { recursive: true });
  const toml = [
    `model = "${model}"`,
    'model_provider = "neo"',
    'check_for_update_on_startup = false',
    '[model_providers.neo]',
    'name = "neo model server"',
    `base_url = "${url}/v1"`,
    'env_key = "NEO_MODEL_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 120000',
    '[analytics]',
    'enabled = false',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'api_key_model_discovery = false',
    '',
  ].join('\n');
  await writeFile(join(dir, 'config.toml'), toml);
  return { CODEX_HOME: dir, NEO_MODEL_API_KEY: 'neo-scripted' };
}
