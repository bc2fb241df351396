import { describe, expect, it } from 'vitest';
import { readServerSpecs } from '../../../../engine/agent/mcp/server-spec.js';

const env = { PATH: '/bin', HOME: '/home/u', API_TOKEN: 'secret-token-1', LOGIN: 'login-value-2', OTHER: 'other-3' };

describe('MCP server specs', () => {
  it('a stdio server gets the allowlist plus exactly what its env lists, references expanded and kept for redaction', () => {
    const { specs, ignored, secrets } = readServerSpecs(
      { docs: { command: 'node', args: ['s.mjs', 1], env: { TOKEN: '${LOGIN}', MODE: 'ro' }, readOnly: ['search'] } },
      env,
    );
    expect(ignored).toEqual([]);
    expect(specs).toEqual([
      {
        name: 'docs',
        kind: 'stdio',
        command: 'node',
        args: ['s.mjs', '1'],
        env: { PATH: '/bin', HOME: '/home/u', TOKEN: 'login-value-2', MODE: 'ro' },
        readOnly: new Set(['search']),
        callTimeoutMs: 120_000,
      },
    ]);
    expect(secrets).toEqual([{ name: 'LOGIN', value: 'login-value-2' }]);
  });

  it('a remote server: type from the url, headers expanded, the timeout read', () => {
    const { specs } = readServerSpecs(
      {
        gh: {
          url: 'https://example.com/mcp',
          headers: { Authorization: 'Bearer ${API_TOKEN}' },
          readOnly: true,
          timeout: '5s',
        },
      },
      env,
    );
    expect(specs[0]).toMatchObject({
      kind: 'http',
      headers: { Authorization: 'Bearer secret-token-1' },
      readOnly: true,
      callTimeoutMs: 5000,
    });
    expect(String((specs[0] as { url: URL }).url)).toBe('https://example.com/mcp');
  });

  it('every server neo cannot use is ignored with the reason', () => {
    const { specs, ignored } = readServerSpecs(
      {
        'bad name': { command: 'x' },
        list: [],
        nocmd: {},
        ws: { type: 'ws', url: 'ws://x' },
        file: { type: 'http', url: 'file:///etc/passwd' },
        junk: { url: 'not a url' },
        ro: { command: 'x', readOnly: 'yes' },
        slow: { command: 'x', timeout: 'forever' },
        unset: { command: 'x', env: { K: '${NOT_SET}' } },
      },
      env,
    );
    expect(specs).toEqual([]);
    expect(ignored).toEqual([
      { name: 'bad name', reason: 'its name must be letters, digits, _ or - (it becomes part of tool names)' },
      { name: 'list', reason: 'its entry is not an object' },
      { name: 'nocmd', reason: 'a stdio server needs a `command`' },
      { name: 'ws', reason: 'unknown type `ws` (stdio, http or sse)' },
      { name: 'file', reason: 'its url must be http(s), not file:' },
      { name: 'junk', reason: 'its url is not a URL: not a url' },
      { name: 'ro', reason: '`readOnly` must be true, false or a list of tool names' },
      { name: 'slow', reason: '`timeout` must be a duration such as 30s' },
      { name: 'unset', reason: "unset.env.K references ${NOT_SET}, which is not set in the session's environment" },
    ]);
  });
});
