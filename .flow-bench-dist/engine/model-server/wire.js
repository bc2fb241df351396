/** `event: name\ndata: json\n\n` (or data only): one Server-Sent Event. */
export function serializeEvent(event) {
    return `${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`;
}
/** An event whose data is JSON. */
export function jsonEvent(event, data, content = false) {
    return { ...(event === undefined ? {} : { event }), data: JSON.stringify(data), ...(content ? { content: true } : {}) };
}
/** The call id of tool call `index`: the script's, or one in the API's style. */
export function callId(plan, call, index, prefix) {
    return call.id ?? `${prefix}${plan.base}_${index}`;
}
/** Parses function arguments for a non-streamed body; raw text that is not JSON stays a string. */
export function parsedArguments(input) {
    try {
        return JSON.parse(input);
    }
    catch {
        return input;
    }
}
/** The API's error type for an HTTP status, OpenAI style. */
export function openAiErrorType(status) {
    if (status === 401)
        return { type: 'invalid_request_error', code: 'invalid_api_key' };
    if (status === 429)
        return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
    if (status >= 500)
        return { type: 'server_error', code: null };
    return { type: 'invalid_request_error', code: null };
}
