/**
 * The neo.yaml that points neo's own agent at a scripted model server (engine/model-server): a
 * provider `scripted` on the Anthropic API at `baseUrl`, its key from NEO_TEST_KEY, and the agent
 * on it with the model `scripted-model`; `more` is appended (more `agent:` lines, two spaces in,
 * or top-level keys).
 */
export function scriptedAgentConfig(baseUrl: string, more = ''): string {
  return (
    `providers:\n  scripted:\n    api: anthropic\n    baseUrl: ${baseUrl}\n    apiKey: \${NEO_TEST_KEY}\n` +
    `agent:\n  provider: scripted\n  model: scripted-model\n${more}`
  );
}
