/** A tool input error: reported to the model as a tool error, not thrown out of the loop. */
export class ToolInputError extends Error {
}
/** Reads a required string field. */
export function requireString(input, field) {
    const value = input[field];
    if (typeof value !== 'string' || value === '')
        throw new ToolInputError(`"${field}" is required and must be a non-empty string`);
    return value;
}
/** Reads an optional string field. */
export function optionalString(input, field) {
    const value = input[field];
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== 'string')
        throw new ToolInputError(`"${field}" must be a string`);
    return value;
}
/** Reads an optional positive integer field. */
export function optionalInt(input, field, min = 0) {
    const value = input[field];
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
        throw new ToolInputError(`"${field}" must be an integer ≥ ${min}`);
    return value;
}
/** Reads an optional boolean field. */
export function optionalBool(input, field) {
    const value = input[field];
    if (value === undefined || value === null)
        return undefined;
    if (typeof value !== 'boolean')
        throw new ToolInputError(`"${field}" must be true or false`);
    return value;
}
