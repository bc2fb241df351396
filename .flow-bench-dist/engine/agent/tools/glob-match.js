/**
 * Glob patterns as regular expressions: `**` crosses folders, `*` and `?` do not, `{a,b}`
 * alternates, `[abc]` / `[!abc]` are character classes. Paths use `/`.
 */
export function globToRegExp(pattern) {
    let out = '';
    let depth = 0;
    for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === '*') {
            if (pattern[i + 1] === '*') {
                const slash = pattern[i + 2] === '/';
                out += slash ? '(?:.*/)?' : '.*';
                i += slash ? 2 : 1;
            }
            else {
                out += '[^/]*';
            }
        }
        else if (c === '?') {
            out += '[^/]';
        }
        else if (c === '{') {
            depth++;
            out += '(?:';
        }
        else if (c === '}' && depth > 0) {
            depth--;
            out += ')';
        }
        else if (c === ',' && depth > 0) {
            out += '|';
        }
        else if (c === '[') {
            const end = pattern.indexOf(']', i + 2);
            if (end === -1) {
                out += '\\[';
            }
            else {
                let body = pattern.slice(i + 1, end);
                if (body.startsWith('!'))
                    body = `^${body.slice(1)}`;
                out += `[${body.replace(/\\/g, '\\\\')}]`;
                i = end;
            }
        }
        else {
            out += c.replace(/[.+^$()|\\/]/g, (m) => `\\${m}`);
        }
    }
    return new RegExp(`^${out}$`);
}
/** A grep-style filter: a pattern without `/` matches a file's name at any depth. */
export function fileFilter(pattern) {
    const regex = globToRegExp(pattern);
    if (pattern.includes('/'))
        return (path) => regex.test(path);
    return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
}
