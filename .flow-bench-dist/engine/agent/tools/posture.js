export function postureDecision(posture, effect) {
    if (effect === 'read')
        return 'allow';
    switch (posture) {
        case 'plan':
            return 'deny';
        case 'default':
            return 'ask';
        case 'acceptEdits':
            return effect === 'write' ? 'allow' : 'ask';
        case 'full':
            return 'allow';
    }
}
/** An approver that applies the current posture and asks when it says so. */
export function postureApprover(currentPosture, ask) {
    return async ({ tool, input, signal }) => {
        const posture = currentPosture();
        const decision = postureDecision(posture, tool.effect);
        const name = tool.spec.name;
        if (decision === 'allow')
            return { allow: true };
        if (decision === 'deny') {
            return { allow: false, message: `denied: posture ${posture} allows ${tool.effect === 'write' ? 'no file changes' : 'no commands'} (${name})` };
        }
        const answer = await ask({ toolName: name, input, signal });
        const summary = `${name} ${briefInput(input)}`;
        if (answer.allow)
            return { allow: true, pinned: `Permission asked for ${summary}: allowed${answer.reason ? ` (${answer.reason})` : ''}.` };
        const why = answer.reason ? `: ${answer.reason}` : '';
        return { allow: false, message: `denied by the user${why}`, pinned: `Permission asked for ${summary}: denied${why}.` };
    };
}
function briefInput(input) {
    const text = JSON.stringify(input);
    return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}
