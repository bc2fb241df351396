/**
 * One HTTP POST with the timeouts a long model generation needs. There is no total deadline: a
 * long reasoning turn is legitimate. Instead the wait for response headers is bounded (generous,
 * because a non-streaming API sends them only when generation ends), and every body read is
 * guarded by an idle timer that cancels the request when the server goes silent. The caller's
 * AbortSignal is the overall bound.
 *
 * Built on node:http rather than the global fetch: fetch's dispatcher imposes its own 300-second
 * header and body timeouts, which would cut off exactly the turns these rules exist for.
 */
import http from 'node:http';
import https from 'node:https';
import { cancelledError, timeoutError, transportError } from '../errors.js';
const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
};
/** Most bytes read from an error body (the rest is dropped; it is only for an excerpt). */
const ERROR_BODY_MAX = 1024 * 1024;
/** Sends the request and resolves when the response headers arrive. */
export function postStream(request) {
    const { provider, signal } = request;
    if (signal?.aborted)
        return Promise.reject(cancelledError());
    const url = new URL(request.url);
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
        let failure;
        const req = (secure ? https : http).request(url, {
            method: 'POST',
            agent: secure ? agents.https : agents.http,
            headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        });
        const fail = (error) => {
            failure ??= error;
            req.destroy(error);
        };
        const onAbort = () => fail(cancelledError());
        signal?.addEventListener('abort', onAbort, { once: true });
        const headerTimer = setTimeout(() => fail(timeoutError(provider, 'headers', request.headersTimeoutMs)), request.headersTimeoutMs);
        req.on('error', (error) => {
            clearTimeout(headerTimer);
            signal?.removeEventListener('abort', onAbort);
            reject(failure ?? transportError(provider, error));
        });
        req.on('response', (res) => {
            clearTimeout(headerTimer);
            signal?.removeEventListener('abort', onAbort);
            resolve(openResponse(res, request));
        });
        req.end(request.body);
    });
}
function openResponse(res, request) {
    let read = false;
    const consume = (onChunk) => {
        if (read)
            return Promise.reject(new Error('response body already read'));
        read = true;
        return consumeBody(res, request, onChunk);
    };
    return {
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        headers: res.headers,
        consume,
        async text() {
            let out = '';
            await consume((chunk) => {
                if (out.length < ERROR_BODY_MAX)
                    out += chunk;
            });
            return out.slice(0, ERROR_BODY_MAX);
        },
        discard() {
            res.destroy();
        },
    };
}
/**
 * Reads the body with plain 'data' events (no promise per chunk: a streamed reply is hundreds of
 * small chunks). The idle timer is one timeout that re-arms itself from the time of the last
 * chunk, rather than a new timer per chunk.
 */
function consumeBody(res, request, onChunk) {
    const { provider, signal, idleTimeoutMs } = request;
    return new Promise((resolve, reject) => {
        let last = Date.now();
        let settled = false;
        let timer;
        const finish = (error) => {
            if (settled)
                return;
            settled = true;
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            if (error === undefined)
                return resolve();
            res.destroy();
            reject(error);
        };
        const check = () => {
            const idle = Date.now() - last;
            if (idle >= idleTimeoutMs)
                finish(timeoutError(provider, 'idle', idleTimeoutMs));
            else
                timer = setTimeout(check, idleTimeoutMs - idle);
        };
        const onAbort = () => finish(cancelledError());
        timer = setTimeout(check, idleTimeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted)
            return onAbort();
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
            if (settled)
                return;
            last = Date.now();
            try {
                onChunk(chunk);
            }
            catch (error) {
                finish(error instanceof Error ? error : new Error(String(error)));
            }
        });
        res.on('end', () => finish());
        res.on('error', (error) => finish(transportError(provider, error)));
        res.on('close', () => {
            if (!res.complete)
                finish(transportError(provider, Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' })));
        });
    });
}
