import { tokenize } from './lexer.js';
const COMPARISONS = new Set(['==', '!=', '<', '>', '<=', '>=']);
/** Parses one expression (the text between `${{` and `}}`). Never throws. */
export function parseExpression(text) {
    const tokens = tokenize(text);
    if (!Array.isArray(tokens))
        return { problem: tokens };
    const parser = new Parser(tokens);
    try {
        const expr = parser.parseOr();
        const next = parser.peek();
        if (next.kind !== 'eof')
            throw problemAt(next, `unexpected \`${text.slice(next.start, next.end)}\``);
        return { expr };
    }
    catch (error) {
        if (isProblem(error))
            return { problem: error };
        throw error;
    }
}
function isProblem(value) {
    return typeof value === 'object' && value !== null && 'code' in value && 'start' in value;
}
function problemAt(token, message) {
    return { code: 'DEF_EXPR_SYNTAX', message, start: token.start, end: Math.max(token.end, token.start + 1) };
}
class Parser {
    tokens;
    #pos = 0;
    constructor(tokens) {
        this.tokens = tokens;
    }
    peek() {
        return this.tokens[this.#pos];
    }
    #next() {
        return this.tokens[this.#pos++];
    }
    #isOp(text) {
        const token = this.peek();
        return token.kind === 'op' && token.text === text;
    }
    #expectOp(text) {
        const token = this.#next();
        if (token.kind !== 'op' || token.text !== text)
            throw problemAt(token, `expected \`${text}\``);
        return token;
    }
    parseOr() {
        let left = this.#parseAnd();
        while (this.#isOp('||')) {
            this.#next();
            const right = this.#parseAnd();
            left = binary('||', left, right);
        }
        return left;
    }
    #parseAnd() {
        let left = this.#parseComparison();
        while (this.#isOp('&&')) {
            this.#next();
            const right = this.#parseComparison();
            left = binary('&&', left, right);
        }
        return left;
    }
    #parseComparison() {
        const left = this.#parseUnary();
        const token = this.peek();
        if (token.kind === 'op' && COMPARISONS.has(token.text)) {
            this.#next();
            const right = this.#parseUnary();
            return binary(token.text, left, right);
        }
        return left;
    }
    #parseUnary() {
        const token = this.peek();
        if (token.kind === 'op' && token.text === '!') {
            this.#next();
            const operand = this.#parseUnary();
            return { type: 'unary', op: '!', operand, start: token.start, end: operand.end };
        }
        return this.#parsePrimary();
    }
    #parsePrimary() {
        const token = this.#next();
        switch (token.kind) {
            case 'string':
                return { type: 'literal', value: token.value, start: token.start, end: token.end };
            case 'number':
                return { type: 'literal', value: token.value, start: token.start, end: token.end };
            case 'ident':
                return this.#parseIdent(token);
            case 'op':
                if (token.text === '(') {
                    const inner = this.parseOr();
                    this.#expectOp(')');
                    return inner;
                }
                throw problemAt(token, `unexpected \`${token.text}\``);
            case 'eof':
                throw problemAt(token, 'expression ends too early');
        }
    }
    #parseIdent(token) {
        if (token.text === 'true' || token.text === 'false') {
            return { type: 'literal', value: token.text === 'true', start: token.start, end: token.end };
        }
        if (token.text === 'null')
            return { type: 'literal', value: null, start: token.start, end: token.end };
        if (this.#isOp('(')) {
            this.#next();
            const args = [];
            if (!this.#isOp(')')) {
                args.push(this.parseOr());
                while (this.#isOp(',')) {
                    this.#next();
                    args.push(this.parseOr());
                }
            }
            const close = this.#expectOp(')');
            return { type: 'call', name: token.text, args, start: token.start, end: close.end };
        }
        const segments = [];
        let end = token.end;
        for (;;) {
            if (this.#isOp('.')) {
                this.#next();
                const name = this.#next();
                if (name.kind !== 'ident')
                    throw problemAt(name, 'expected a name after `.`');
                segments.push({ kind: 'name', name: name.text });
                end = name.end;
            }
            else if (this.#isOp('[')) {
                this.#next();
                const expr = this.parseOr();
                end = this.#expectOp(']').end;
                segments.push({ kind: 'index', expr });
            }
            else {
                break;
            }
        }
        return { type: 'path', root: token.text, segments, start: token.start, end };
    }
}
function binary(op, left, right) {
    return { type: 'binary', op, left, right, start: left.start, end: right.end };
}
