/** Values shorter than this are not scrubbed: they would match ordinary text. */
const MIN_SECRET_CHARS = 6;
export function secretRedactor(secrets) {
    const pairs = secrets.map((s) => [s.reveal(), `[redacted \${${s.name}}]`]).filter(([value]) => value.length >= MIN_SECRET_CHARS);
    if (pairs.length === 0)
        return (text) => text;
    return (text) => {
        let out = text;
        for (const [value, replacement] of pairs)
            if (out.includes(value))
                out = out.split(value).join(replacement);
        return out;
    };
}
