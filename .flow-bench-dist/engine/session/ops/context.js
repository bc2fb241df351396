import { SessionRejection, sessionNotFound } from '../errors.js';
/** The caller's live session, or a typed error that says whether it was stopped or never ours. */
export async function liveSession(ctx, sessionId) {
    const session = ctx.registry.find(sessionId);
    if (session !== undefined && session.ownerScope === ctx.caller.scope && !session.closed)
        return session;
    if (await ctx.registry.wasReleasedBy(sessionId, ctx.caller.scope)) {
        throw new SessionRejection('SESSION_RELEASED', `code session \`${sessionId}\` was stopped; it takes no more ops`, {
            hint: 'its record and events stay readable: `neo sessions show <id> --events`',
        });
    }
    throw sessionNotFound(sessionId);
}
