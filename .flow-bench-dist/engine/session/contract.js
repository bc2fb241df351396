/** Every op name, in the order the seed lists them. */
export const OPS = ['start', 'read-turn', 'answer', 'guide', 'set-posture', 'interrupt', 'stop', 'list-backends'];
/** The driver's verdict on a session it stops (string-identical to the learning record's outcome). */
export const STOP_OUTCOMES = ['success', 'partial', 'failed', 'aborted'];
/** The model class sentinels a start or guide may name instead of a concrete model id. */
export const MODEL_CLASSES = ['cheap', 'standard', 'frontier'];
