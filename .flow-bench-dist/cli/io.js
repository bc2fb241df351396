export function processIO() {
    return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
}
/** Colours only on a TTY and never under NO_COLOR (any value) or TERM=dumb. */
export function useColor(stream, env) {
    if (env.NO_COLOR !== undefined)
        return false;
    if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0')
        return true;
    if (env.TERM === 'dumb')
        return false;
    return stream.isTTY === true;
}
export function writeLine(stream, text = '') {
    stream.write(`${text}\n`);
}
/** Prints a value as JSON (the `--json` output of every data command). */
export function writeJson(stream, value) {
    stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
/** A small ANSI painter that is a no-op when colour is off. */
export function painter(on) {
    const wrap = (code) => (text) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
    return { bold: wrap('1'), dim: wrap('2'), red: wrap('31'), green: wrap('32'), yellow: wrap('33'), cyan: wrap('36') };
}
/** Renders rows as aligned columns. */
export function table(rows) {
    const widths = [];
    for (const row of rows)
        row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell))));
    return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visibleLength(cell)))).join('  ').trimEnd()).join('\n');
}
function visibleLength(text) {
    return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}
