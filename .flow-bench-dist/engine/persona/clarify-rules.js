import { askCommand, askPaths } from './ask-input.js';
import { commandFragments, splitCommand, startsWithWords } from './command-words.js';
import { globMatch, relativeInside } from './path-glob.js';
/** Decides one ask by the rules; `cwd` is the session's working directory (absolute). */
export function matchClarifyRules(ask, rules, cwd) {
    const facts = askFacts(ask, cwd);
    const list = rules.clarify ?? [];
    for (let i = 0; i < list.length; i++) {
        const rule = list[i];
        if (!ruleMatches(rule, ask, facts))
            continue;
        return { decision: rule.decision, reason: rule.reason ?? defaultReason(rule, ask, facts), rule: `clarify[${i}]` };
    }
    const otherwise = rules.otherwise ?? 'deny';
    return { decision: otherwise, reason: otherwiseReason(ask, facts), rule: 'otherwise' };
}
function askFacts(ask, cwd) {
    return {
        command: askCommand(ask.input),
        paths: askPaths(ask.input).map((raw) => ({ raw, relative: relativeInside(cwd, raw) })),
    };
}
function ruleMatches(rule, ask, facts) {
    if (rule.tool !== undefined && !toolNames(rule.tool).includes(ask.toolName))
        return false;
    if (rule.path !== undefined && !pathMatches(rule, facts))
        return false;
    if (rule.command !== undefined && !commandMatches(rule, facts.command))
        return false;
    return true;
}
/** Allow: every path inside cwd and matching. Deny/ask: any path (inside cwd) matching. */
function pathMatches(rule, facts) {
    if (facts.paths.length === 0)
        return false;
    const glob = rule.path;
    if (rule.decision === 'allow')
        return facts.paths.every((p) => p.relative !== undefined && globMatch(glob, p.relative));
    return facts.paths.some((p) => p.relative !== undefined && globMatch(glob, p.relative));
}
function commandMatches(rule, command) {
    if (command === undefined)
        return false;
    const prefix = rule.command;
    if ('argv' in command) {
        // An argv list runs without a shell: its words are exact; a shell wrapper is not a prefix match.
        return rule.decision === 'allow' ? startsWithWords(command.argv, prefix) : textPrefix(command.argv, prefix) || command.argv.some((part) => commandFragments(part).some((f) => textPrefix(f, prefix)));
    }
    if (rule.decision === 'allow') {
        const read = splitCommand(command.line);
        return !read.compound && !read.unterminated && startsWithWords(read.words, prefix);
    }
    return commandFragments(command.line).some((fragment) => textPrefix(fragment, prefix));
}
function textPrefix(words, prefix) {
    const wanted = splitCommand(prefix).words.join(' ');
    return wanted !== '' && words.join(' ').startsWith(wanted);
}
function toolNames(value) {
    return (Array.isArray(value) ? value : value.split(',')).map((t) => t.trim()).filter((t) => t !== '');
}
function describeAsk(ask, facts) {
    if (facts.command !== undefined)
        return `\`${'line' in facts.command ? facts.command.line : facts.command.argv.join(' ')}\``;
    if (facts.paths.length > 0)
        return `${ask.toolName} on ${facts.paths.map((p) => p.raw).join(', ')}`;
    return ask.toolName;
}
function defaultReason(rule, ask, facts) {
    const what = describeAsk(ask, facts);
    return rule.decision === 'allow' ? `${what} is allowed by the persona's rules` : rule.decision === 'deny' ? `${what} is not allowed by the persona's rules` : `${what} needs a person's decision`;
}
function otherwiseReason(ask, facts) {
    const outside = facts.paths.find((p) => p.relative === undefined);
    if (outside !== undefined)
        return `${outside.raw} is outside the working directory; change files inside it only`;
    if (facts.command !== undefined && 'line' in facts.command && splitCommand(facts.command.line).compound) {
        return `${describeAsk(ask, facts)} chains several commands; run each allowed command on its own`;
    }
    return `no rule of this persona allows ${describeAsk(ask, facts)}`;
}
