/** Paths as the tools take them: relative to the session's working directory, or absolute. */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolInputError } from '../tool.js';
/** The absolute path for a tool's `path` input. */
export function resolvePath(cwd, path) {
    if (path.includes('\0'))
        throw new ToolInputError('path contains a NUL byte');
    return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}
/** A path shown to the model: relative when it is inside the working directory. */
export function displayPath(cwd, absolute) {
    const rel = relative(cwd, absolute);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : absolute;
}
