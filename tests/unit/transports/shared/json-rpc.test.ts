import { describe, expect, it } from 'vitest';
import { JsonRpcError, JsonRpcPeer } from '../../../../engine/transports/shared/json-rpc.js';

function peer(
  includeVersion: boolean,
  onRequest: (method: string, params: unknown) => Promise<unknown> = async () => ({}),
) {
  const sent: Array<Record<string, unknown>> = [];
  const notes: Array<[string, unknown]> = [];
  const rpc = new JsonRpcPeer({
    send: (line) => {
      sent.push(JSON.parse(line) as Record<string, unknown>);
      return true;
    },
    includeVersion,
    onRequest: (method, params) => onRequest(method, params),
    onNotification: (method, params) => notes.push([method, params]),
  });
  return { rpc, sent, notes };
}

describe('JsonRpcPeer', () => {
  it('numbers requests and resolves them by id, with or without the jsonrpc field', async () => {
    const { rpc, sent } = peer(false);
    const a = rpc.request('initialize', { x: 1 });
    const b = rpc.request('thread/start');
    expect(sent).toEqual([
      { id: 1, method: 'initialize', params: { x: 1 } },
      { id: 2, method: 'thread/start' },
    ]);
    expect(rpc.receive({ id: 2, result: { thread: 't' } })).toBe(true);
    expect(rpc.receive({ id: 1, result: null })).toBe(true);
    await expect(b).resolves.toEqual({ thread: 't' });
    await expect(a).resolves.toBeNull();
    const v = peer(true);
    void v.rpc.request('session/new', {});
    v.rpc.notify('session/cancel', { sessionId: 's' });
    expect(v.sent).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'session/new', params: {} },
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's' } },
    ]);
  });

  it('rejects with the error object a response carries', async () => {
    const { rpc } = peer(false);
    const pending = rpc.request('thread/start', { approvalPolicy: 'onRequest' });
    rpc.receive({ error: { code: -32600, message: 'Invalid request: unknown variant `onRequest`' }, id: 1 });
    await expect(pending).rejects.toMatchObject({
      name: 'JsonRpcError',
      code: -32600,
      message: 'Invalid request: unknown variant `onRequest`',
    });
  });

  it("carries an error's data.details into the message (an ACP agent's internal error says why only there)", async () => {
    const { rpc } = peer(true);
    const pending = rpc.request('session/set_mode', { modeId: 'autoEdit' });
    const details = 'Cannot enable privileged approval modes in an untrusted folder.';
    rpc.receive({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error', data: { details } } });
    await expect(pending).rejects.toMatchObject({
      code: -32603,
      message: `Internal error: ${details}`,
      data: { details },
    });
    const second = rpc.request('session/prompt');
    rpc.receive({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'Failed', data: 'quota exhausted' } });
    await expect(second).rejects.toMatchObject({ message: 'Failed: quota exhausted' });
  });

  it('answers incoming requests with the handler result, or its JsonRpcError', async () => {
    const { rpc, sent } = peer(true, async (method) => {
      if (method === 'fs/read_text_file') return { content: 'x' };
      throw new JsonRpcError(-32601, `no ${method}`);
    });
    rpc.receive({ jsonrpc: '2.0', id: 7, method: 'fs/read_text_file', params: {} });
    rpc.receive({ jsonrpc: '2.0', id: 'a', method: 'terminal/create', params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 7, result: { content: 'x' } },
      { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: 'no terminal/create' } },
    ]);
  });

  it('routes notifications, refuses non-JSON-RPC values, and fails pending requests on close', async () => {
    const { rpc, notes } = peer(false);
    rpc.receive({ method: 'turn/started', params: { turn: { id: 't' } } });
    expect(notes).toEqual([['turn/started', { turn: { id: 't' } }]]);
    expect(rpc.receive({ hello: 'world' })).toBe(false);
    expect(rpc.receive([1, 2])).toBe(false);
    const pending = rpc.request('turn/start');
    expect(rpc.pendingMethods()).toEqual(['turn/start']);
    rpc.close(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    await expect(rpc.request('later')).rejects.toThrow('gone');
  });
});
