import { describe, expect, it } from 'vitest';
import {
  isPermanentProviderCode,
  providerCode,
  providerFailureMessage,
} from '../../../../engine/transports/shared/provider-failure.js';
import { codexFailure } from '../../../../engine/transports/codex/errors.js';
import { agentNotice, promptErrorDetail, stderrModelFailure } from '../../../../engine/transports/acp/agent-notices.js';
import { JsonRpcError } from '../../../../engine/transports/shared/json-rpc.js';

describe('provider failures: one rule names them, whichever CLI reported them', () => {
  it('the HTTP status decides when there is one, else the words', () => {
    expect(providerCode(401, '')).toBe('TRANSPORT_UNAUTHENTICATED');
    expect(providerCode(403, '')).toBe('TRANSPORT_UNAUTHENTICATED');
    expect(providerCode(429, '')).toBe('TRANSPORT_RATE_LIMITED');
    expect(providerCode(503, 'Incorrect API key')).toBe('TRANSPORT_PROVIDER_ERROR');
    expect(providerCode(undefined, 'Internal error: Incorrect API key provided: sk-****')).toBe(
      'TRANSPORT_UNAUTHENTICATED',
    );
    expect(providerCode(undefined, 'AI_APICallError: Cannot connect to API: Unable to connect.')).toBe(
      'TRANSPORT_PROVIDER_UNREACHABLE',
    );
    expect(providerCode(undefined, 'Connection error.')).toBe('TRANSPORT_PROVIDER_UNREACHABLE');
    expect(providerCode(undefined, 'Last error: 500 Scripted outage')).toBe('TRANSPORT_PROVIDER_ERROR');
    expect(providerCode(undefined, 'the test suite failed')).toBeUndefined();
    expect(isPermanentProviderCode('TRANSPORT_UNAUTHENTICATED')).toBe(true);
    expect(isPermanentProviderCode('TRANSPORT_PROVIDER_UNREACHABLE')).toBe(false);
  });

  it('the message names the backend, the failure, the status and the CLI own words, on one line', () => {
    expect(
      providerFailureMessage(
        'copilot',
        'TRANSPORT_UNAUTHENTICATED',
        'Authentication failed (HTTP 401).\n  Check your key.',
        {
          authHint: 'export COPILOT_GITHUB_TOKEN',
        },
      ),
    ).toBe(
      'copilot: it is not authenticated with its model provider: Authentication failed (HTTP 401). Check your key. — check the API key or login the CLI uses (export COPILOT_GITHUB_TOKEN)',
    );
    expect(providerFailureMessage('codex', 'TRANSPORT_PROVIDER_ERROR', 'high demand', { status: 500 })).toBe(
      'codex: its model provider failed (HTTP 500): high demand',
    );
  });

  it('codex: codexErrorInfo words and objects (codex-cli 0.171.0)', () => {
    expect(
      codexFailure({
        message: 'unexpected status 401 Unauthorized: Incorrect API key provided',
        codexErrorInfo: { httpConnectionFailed: { httpStatusCode: 401 } },
        additionalDetails: null,
      }),
    ).toEqual({
      code: 'TRANSPORT_UNAUTHENTICATED',
      status: 401,
      detail: 'unexpected status 401 Unauthorized: Incorrect API key provided',
    });
    expect(codexFailure({ message: 'high demand', codexErrorInfo: 'internalServerError' }).code).toBe(
      'TRANSPORT_PROVIDER_ERROR',
    );
    expect(
      codexFailure({
        message: 'Reconnecting... waiting for network',
        codexErrorInfo: { responseStreamDisconnected: { httpStatusCode: null } },
        additionalDetails: 'Connection failed: error sending request',
      }),
    ).toEqual({
      code: 'TRANSPORT_PROVIDER_UNREACHABLE',
      status: undefined,
      detail: 'Reconnecting... waiting for network (Connection failed: error sending request)',
    });
    expect(codexFailure({ message: 'context window exceeded', codexErrorInfo: 'contextWindowExceeded' }).code).toBe(
      undefined,
    );
  });

  it('ACP agents: Copilot reports retries and failures as whole agent messages; other text is the agent', () => {
    expect(agentNotice('Info: Request failed due to a transient API error. Retrying...')).toEqual({
      kind: 'retry',
      message: 'Request failed due to a transient API error. Retrying...',
    });
    expect(
      agentNotice(
        'Error: Authentication failed with provider at http://127.0.0.1:1/v1 (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY.',
      ),
    ).toMatchObject({ kind: 'failure', code: 'TRANSPORT_UNAUTHENTICATED' });
    expect(
      agentNotice(
        'Error: Could not connect to local model provider at http://127.0.0.1:1/v1.\n  Check that the service is running.',
      ),
    ).toMatchObject({ kind: 'failure', code: 'TRANSPORT_PROVIDER_UNREACHABLE' });
    expect(
      agentNotice(
        'Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 13.61 seconds) Last error: 500 Scripted outage',
      ),
    ).toMatchObject({ kind: 'failure', code: 'TRANSPORT_PROVIDER_ERROR' });
    expect(agentNotice('Error: the tests fail because of a 401 in the fixture')).toBeUndefined();
    expect(agentNotice('I fixed the bug. Retrying...')).toBeUndefined();
  });

  it("ACP agents: a failed prompt carries the agent's own cause (droid puts it in the JSON-RPC data)", () => {
    expect(
      promptErrorDetail(new JsonRpcError(-32603, 'Internal error: Agent error', '401 Incorrect API key provided')),
    ).toBe('Internal error: Agent error: 401 Incorrect API key provided');
    expect(
      promptErrorDetail(
        new JsonRpcError(-32603, 'Internal error: Incorrect API key', { service: 'session', errorName: 'APIError' }),
      ),
    ).toBe('Internal error: Incorrect API key: {"service":"session","errorName":"APIError"}');
    expect(promptErrorDetail(new JsonRpcError(-32603, 'Internal error: Agent error'), 'Connection error.')).toBe(
      'Internal error: Agent error: Connection error.',
    );
  });

  it("OpenCode's stderr log line of a failed model request (opencode 1.18.33 --print-logs --log-level ERROR)", () => {
    const line =
      'timestamp=2026-12-01T22:46:47.406Z level=ERROR run=acaa0ecd message="stream error" providerID=neo modelID=scripted session.id=ses_1 small=false agent=build mode=primary error.error="AI_APICallError: Cannot connect to API: Unable to connect. (cause: \\"x\\")"';
    expect(stderrModelFailure(line)).toBe('AI_APICallError: Cannot connect to API: Unable to connect. (cause: "x")');
    expect(stderrModelFailure(line.replace('small=false', 'small=true'))).toBeUndefined();
    expect(stderrModelFailure('Error flushing telemetry events to web: {"code":"ENOTFOUND"}')).toBeUndefined();
  });
});
