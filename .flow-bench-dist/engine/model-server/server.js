import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { NeoError, UsageError, errorMessage } from '../util/errors.js';
import { handleModelRequest } from './handle-model.js';
import { handleOther } from './handle-other.js';
import { parseBody, readBody } from './read-body.js';
import { redactHeaders, redactQuery, RequestLog } from './request-log.js';
import { sendJson } from './respond.js';
import { route } from './routes.js';
import { TurnBook } from './turn-book.js';
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/**
 * Starts the scripted model server on loopback. It answers Anthropic Messages, OpenAI Responses,
 * OpenAI Chat Completions and Gemini requests turn by turn from the script, answers the CLIs'
 * auxiliary calls without spending turns, and logs every request.
 */
export async function startModelServer(options) {
    const host = options.host ?? '127.0.0.1';
    if (!LOOPBACK.has(host)) {
        throw new UsageError('MODEL_HOST_NOT_LOOPBACK', `the model server binds to loopback only; got host ${host}`, { hint: 'use 127.0.0.1 (the default), ::1 or localhost' });
    }
    const log = new RequestLog({ ...(options.log === undefined ? {} : { file: options.log }), ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }) });
    const shared = {
        book: new TurnBook(options.script),
        nonce: options.nonce ?? `neo${randomBytes(4).toString('hex')}`,
        clock: options.clock ?? Date.now,
        vars: options.vars ?? {},
        seq: 0,
    };
    const active = new Set();
    const handle = async (req, res) => {
        const controller = new AbortController();
        active.add(controller);
        let entry;
        res.on('close', () => {
            active.delete(controller);
            if (!res.writableFinished) {
                controller.abort();
                if (entry !== undefined)
                    entry.aborted = true;
            }
        });
        const seq = ++shared.seq;
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const method = req.method ?? 'GET';
        const target = route(method, url.pathname);
        let raw;
        try {
            raw = await readBody(req);
        }
        catch (error) {
            const status = error instanceof NeoError && error.code === 'MODEL_BODY_TOO_LARGE' ? 413 : 415;
            sendJson(res, status, { error: { type: 'invalid_request_error', message: errorMessage(error) } });
            return;
        }
        const { value: body, json } = parseBody(raw);
        entry = {
            seq,
            time: new Date(shared.clock()).toISOString(),
            method,
            path: url.pathname,
            query: redactQuery(url.searchParams),
            headers: redactHeaders(req.headers),
            body,
            role: 'other',
            warnings: [],
        };
        const exchange = { req, res, url, entry, body, json, requestChars: raw.length, signal: controller.signal, log };
        if (target.kind === 'anthropic' || target.kind === 'responses' || target.kind === 'chat' || (target.kind === 'gemini' && target.action !== 'countTokens')) {
            await handleModelRequest(exchange, target, { ...shared, base: `${shared.nonce}_${seq}` });
        }
        else {
            handleOther(exchange, target, { script: shared.book.script, state: () => shared.book.state() });
        }
    };
    const server = createServer((req, res) => {
        handle(req, res).catch((error) => {
            if (!res.headersSent)
                sendJson(res, 500, { error: { type: 'api_error', message: `neo model server: ${errorMessage(error)}` } });
            else
                res.destroy();
        });
    });
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, host, () => {
            server.off('error', reject);
            resolve();
        });
    });
    const port = server.address().port;
    const urlHost = host === '::1' ? '[::1]' : host;
    let closing;
    return {
        url: `http://${urlHost}:${port}`,
        port,
        requests: log.entries,
        waitForRequest: (predicate, timeoutMs) => log.waitFor(predicate, timeoutMs),
        state: () => shared.book.state(),
        setScript(script) {
            shared.book = new TurnBook(script);
        },
        close() {
            closing ??= (async () => {
                for (const controller of active)
                    controller.abort();
                await new Promise((resolve) => {
                    server.close(() => resolve());
                    server.closeAllConnections();
                });
                await log.close();
            })();
            return closing;
        },
    };
}
