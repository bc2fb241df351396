/**
 * How often something outside the driver stepped into a session, counted from its persisted
 * events (seed 004 §7): a person's guidance, permission asks (counted when raised), posture
 * escalations, interrupts. Pure.
 */
import type { Posture } from '../definitions/index.js';
import { postureWithin } from '../posture/index.js';
import type { PersistedSessionEvent } from '../session/index.js';

export interface Interventions {
  userGuidance: number;
  clarifications: number;
  postureEscalations: number;
  interrupts: number;
  total: number;
}

export function countInterventions(events: readonly PersistedSessionEvent[]): Interventions {
  const counts = { userGuidance: 0, clarifications: 0, postureEscalations: 0, interrupts: 0 };
  let posture: Posture | undefined;
  for (const { event } of events) {
    switch (event.type) {
      case 'created':
      case 'adopted':
        posture = event.posture;
        break;
      case 'guidance':
        if (event.source === 'user') counts.userGuidance++;
        break;
      case 'clarify':
        counts.clarifications++;
        break;
      case 'posture':
        if (posture !== undefined && !postureWithin(event.mode, posture)) counts.postureEscalations++;
        posture = event.mode;
        break;
      case 'interrupt':
        counts.interrupts++;
        break;
      default:
        break;
    }
  }
  return {
    ...counts,
    total: counts.userGuidance + counts.clarifications + counts.postureEscalations + counts.interrupts,
  };
}
