type Json = Record<string, unknown>;

/** An ACP PermissionOption. */
export interface PermissionOption {
  optionId: string;
  kind: string;
  name?: string;
}

/**
 * The reply to session/request_permission for a decision: the option of the matching kind
 * (once before always, so an allow never widens into a standing rule), else `cancelled`.
 */
export function permissionOutcome(options: unknown, allow: boolean): Json {
  const list = Array.isArray(options)
    ? (options as PermissionOption[]).filter((o) => typeof o?.optionId === 'string')
    : [];
  const order = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const option = list.find((o) => o.kind === kind);
    if (option !== undefined) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

export const CANCELLED_OUTCOME: Json = { outcome: { outcome: 'cancelled' } };
