/**
 * Reading a command line the way a POSIX shell would split it, without running a shell. Two
 * uses: a clarification rule matches a command prefix on whole words of a SIMPLE command only,
 * and a persona's verify command is split into argv so no shell ever sees it. Pure.
 */
const OPERATOR = new Set(['&', '|', ';', '<', '>', '(', ')', '\n', '\r']);
/**
 * Splits `line` into words: single quotes are literal, double quotes keep `$(` and backticks
 * live (and are flagged), a backslash escapes the next character. Anything a shell would treat
 * as control or redirection marks the line compound.
 */
export function splitCommand(line) {
    const words = [];
    let word = '';
    let inWord = false;
    let compound = false;
    let quote;
    for (let i = 0; i < line.length; i++) {
        const ch = line[i];
        if (quote === "'") {
            if (ch === "'")
                quote = undefined;
            else
                word += ch;
            continue;
        }
        if (quote === '"') {
            if (ch === '"')
                quote = undefined;
            else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]))
                word += line[++i];
            else {
                if (ch === '`' || (ch === '$' && line[i + 1] === '('))
                    compound = true;
                word += ch;
            }
            continue;
        }
        if (ch === '\\') {
            if (i + 1 < line.length) {
                word += line[++i];
                inWord = true;
            }
            continue;
        }
        if (ch === "'" || ch === '"') {
            quote = ch;
            inWord = true;
            continue;
        }
        if (ch === ' ' || ch === '\t') {
            if (inWord)
                words.push(word);
            word = '';
            inWord = false;
            continue;
        }
        if (OPERATOR.has(ch) || ch === '`' || (ch === '$' && line[i + 1] === '(')) {
            compound = true;
            if (ch === '$')
                i++;
            if (inWord)
                words.push(word);
            word = '';
            inWord = false;
            continue;
        }
        word += ch;
        inWord = true;
    }
    if (inWord)
        words.push(word);
    return { words, compound, unterminated: quote !== undefined };
}
/**
 * Whether `prefix` (a rule's text) starts the command `words` on whole-word boundaries:
 * `npm test` matches `npm test -- --watch` but not `npm tests` or `npm testing`.
 */
export function startsWithWords(words, prefix) {
    const wanted = splitCommand(prefix).words;
    if (wanted.length === 0 || wanted.length > words.length)
        return false;
    return wanted.every((w, i) => words[i] === w);
}
/**
 * Every command-like fragment of a line, each as words, split at every control or substitution
 * character whether quoted or not. Deliberately over-eager: it serves DENY rules, which must
 * find `rm -r` in `npm test && rm -r x` or `echo "$(rm -r x)"`; an ALLOW rule never looks
 * inside a compound line.
 */
export function commandFragments(line) {
    return line
        .split(/\$\(|[;&|`<>()\n\r]/)
        .map((part) => splitCommand(part.replace(/^["'\s]+/, '')).words.filter((word) => word !== ''))
        .filter((words) => words.length > 0);
}
