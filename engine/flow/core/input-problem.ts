/** A problem with the inputs a run was given. */
export interface InputProblem {
  code:
    | 'FLOW_INPUT_UNKNOWN'
    | 'FLOW_INPUT_MISSING'
    | 'FLOW_INPUT_TYPE'
    | 'FLOW_INPUT_ENUM'
    | 'FLOW_INPUT_NUL_BYTE'
    | 'FLOW_INPUT_TOO_DEEP';
  message: string;
  hint?: string;
}
