/**
 * How often something outside the driver stepped into a session, counted from its persisted
 * events (seed 004 §7): a person's guidance, permission asks (counted when raised), posture
 * escalations, interrupts. Pure.
 */
import { postureRank } from '../definitions/index.js';
export function countInterventions(events) {
    const counts = { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0 };
    let posture;
    for (const { event } of events) {
        switch (event.type) {
            case 'created':
            case 'adopted':
                posture = event.posture;
                break;
            case 'guidance':
                if (event.source === 'user')
                    counts.userGuidance++;
                break;
            case 'clarify':
                counts.clarifications++;
                break;
            case 'posture':
                if (posture !== undefined && postureRank(event.mode) > postureRank(posture))
                    counts.postureEscalations++;
                posture = event.mode;
                break;
            case 'interrupt':
                counts.interrupts++;
                break;
            default:
                break;
        }
    }
    return { ...counts, total: counts.userGuidance + counts.clarifications + counts.postureEscalations + counts.interrupts };
}
