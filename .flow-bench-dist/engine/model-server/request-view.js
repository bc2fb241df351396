/** Narrows to a plain object. */
export function isRecord(value) {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** A list, or empty for anything else. */
export function asList(value) {
    return Array.isArray(value) ? value : [];
}
/** A string, or undefined. */
export function asString(value) {
    return typeof value === 'string' ? value : undefined;
}
/**
 * The text inside a content value that may be a string, a list of typed parts (`text`,
 * `input_text`, `output_text`, …) or a nested `content`.
 */
export function textOf(content) {
    if (typeof content === 'string')
        return content;
    if (Array.isArray(content))
        return content.map(textOf).filter((t) => t !== '').join('\n');
    if (isRecord(content)) {
        if (typeof content.text === 'string')
            return content.text;
        if (content.content !== undefined)
            return textOf(content.content);
    }
    return '';
}
