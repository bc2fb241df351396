const TWO_CHAR_OPS = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR_OPS = new Set(['<', '>', '!', '(', ')', '[', ']', '.', ',']);
/** Splits expression text into tokens; throws an ExprProblem-shaped error on a bad character. */
export function tokenize(text) {
    const tokens = [];
    let i = 0;
    while (i < text.length) {
        const ch = text[i];
        if (/\s/.test(ch)) {
            i++;
            continue;
        }
        const start = i;
        if (/[A-Za-z_]/.test(ch)) {
            while (i < text.length && /[A-Za-z0-9_-]/.test(text[i]))
                i++;
            tokens.push({ kind: 'ident', text: text.slice(start, i), start, end: i });
            continue;
        }
        if (/[0-9]/.test(ch) || (ch === '-' && /[0-9]/.test(text[i + 1] ?? ''))) {
            i++;
            while (i < text.length && /[0-9.]/.test(text[i]))
                i++;
            const raw = text.slice(start, i);
            const value = Number(raw);
            if (Number.isNaN(value))
                return { code: 'DEF_EXPR_SYNTAX', message: `bad number \`${raw}\``, start, end: i };
            tokens.push({ kind: 'number', value, start, end: i });
            continue;
        }
        if (ch === "'" || ch === '"') {
            let value = '';
            i++;
            for (;;) {
                if (i >= text.length)
                    return { code: 'DEF_EXPR_SYNTAX', message: 'unterminated string', start, end: i };
                const c = text[i];
                if (c === ch) {
                    // A doubled quote is an escaped quote (GitHub Actions style).
                    if (text[i + 1] === ch) {
                        value += ch;
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                value += c;
                i++;
            }
            tokens.push({ kind: 'string', value, start, end: i });
            continue;
        }
        const two = text.slice(i, i + 2);
        if (TWO_CHAR_OPS.has(two)) {
            tokens.push({ kind: 'op', text: two, start, end: i + 2 });
            i += 2;
            continue;
        }
        if (ONE_CHAR_OPS.has(ch)) {
            tokens.push({ kind: 'op', text: ch, start, end: i + 1 });
            i++;
            continue;
        }
        return { code: 'DEF_EXPR_SYNTAX', message: `unexpected character \`${ch}\``, start, end: i + 1 };
    }
    tokens.push({ kind: 'eof', start: text.length, end: text.length });
    return tokens;
}
