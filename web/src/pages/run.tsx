import { useState } from 'preact/hooks';
import { api, ApiError, type Answered } from '../api';
import { Badge, ErrorLine, Section, useReload, useStream } from '../components/common';
import { DiffView } from '../components/diff-view';
import { LongText } from '../components/long-text';
import { failureOutput, failureOutputHeading } from '../../../engine/flow/core/failure-output.js';
import { costLabel } from '../../../engine/flow/core/cost-label.js';
import { shownStatus, StepGraph } from '../components/step-graph';
import { link } from '../router';
import type { Decision, Diff, RunDetail, UnitState } from '../types';

/** One run: the live step graph, each step's state, verdict, cost and diff, and its controls. */
export function RunPage({ id }: { id: string }) {
  const detail = useReload(() => api<RunDetail>(`/api/flows/runs/${encodeURIComponent(id)}`), [id]);
  useStream(`/api/events?topics=flow_run_event,approval_requested&runId=${encodeURIComponent(id)}`, () =>
    detail.bump(),
  );
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [action, setAction] = useState<unknown>(undefined);
  const d = detail.value;
  if (d === undefined) return <ErrorLine error={detail.error} />;
  const r = d.record;
  const status = d.state?.status ?? r.status;
  const waiting = d.steps.filter((s) => s.kind === 'approval' && d.state?.steps[s.id]?.status === 'running');
  const pick =
    selected ?? waiting[0]?.id ?? d.steps.find((s) => d.state?.steps[s.id]?.status === 'running')?.id ?? d.steps[0]?.id;
  // A dbos run is steered from the CLI on any machine (`--engine dbos`); this page shows it.
  const dbos = d.engine === 'dbos';
  const post = (path: string, body: unknown = {}) =>
    api(path, body).then(() => {
      setAction(undefined);
      detail.bump();
    }, setAction);
  // An answer's outcome (the winner, or the error) is shown by its form; the run reloads either way.
  const answer = (key: string, decision: string, reason: string) =>
    api(`/api/flows/runs/${id}/approvals/${key}`, { decision, ...(reason ? { reason } : {}) }).finally(() =>
      detail.bump(),
    );
  return (
    <div class="page">
      <Section
        title={`${r.flow} · ${r.runId}`}
        actions={
          <>
            {d.live && !dbos ? <button onClick={() => post(`/api/flows/runs/${id}/cancel`)}>Cancel</button> : null}
            {!dbos &&
            !d.live &&
            (status === 'failed' || status === 'interrupted' || r.status === 'running' || r.status === 'waiting') &&
            r.parent === undefined ? (
              <button class="primary" onClick={() => post(`/api/flows/runs/${id}/resume`)}>
                Resume
              </button>
            ) : null}
          </>
        }
      >
        <div class="facts-inline">
          <Badge value={r.status === 'waiting' && d.live ? 'waiting' : status} />{' '}
          {d.live ? <span class="live-dot" title="live" /> : null}
          <span>{costLabel(d.state?.ledger.costUsd ?? r.ledger.costUsd, d.simulatedCostUsd ?? 0)}</span>
          <span>{d.state?.ledger.turns ?? r.ledger.turns} turns</span>
          <span data-testid="run-engine">
            engine {d.engine ?? 'local'}
            {r.executor ? ` · worker ${r.executor}` : ''}
          </span>
          {r.parent ? (
            <a {...link(`/flows/${r.parent.runId}`)}>
              sub-flow of {r.parent.runId} ({r.parent.step})
            </a>
          ) : null}
          {r.reason ? (
            <span class="bad">
              {r.reason.code}: {r.reason.message}
            </span>
          ) : null}
        </div>
        {r.summary ? <pre class="summary">{r.summary.lines.join('\n')}</pre> : null}
        <ErrorLine error={action} />
        <div class="graph-wrap" data-testid="graph">
          <StepGraph detail={d} selected={pick} onSelect={setSelected} />
        </div>
      </Section>
      {dbos ? (
        <p class="dim">
          A dbos run: cancel, resume and answer it with{' '}
          <code>neo flow cancel|resume|approve {r.runId} --engine dbos</code>.
        </p>
      ) : null}
      {pick === undefined ? null : <StepPanel detail={d} stepId={pick} onAnswer={dbos ? undefined : answer} />}
    </div>
  );
}

function StepPanel({
  detail,
  stepId,
  onAnswer,
}: {
  detail: RunDetail;
  stepId: string;
  /** None: the run is answered elsewhere (a dbos run, from the CLI). */
  onAnswer: ((key: string, decision: string, reason: string) => Promise<unknown>) | undefined;
}) {
  const step = detail.steps.find((s) => s.id === stepId)!;
  const state = detail.state?.steps[stepId];
  const units: Array<{ key: string; unit: UnitState }> = state?.units
    ? state.units.map((unit, i) => ({ key: `${stepId}[${i}]`, unit }))
    : state === undefined
      ? []
      : [{ key: stepId, unit: state }];
  return (
    <Section title={`Step ${step.name ?? step.id}`}>
      <div class="facts-inline">
        <span>{step.kind}</span>
        {step.backend ? <span>{step.backend}</span> : null}
        {step.needs.length > 0 ? <span class="dim">needs {step.needs.join(', ')}</span> : null}
      </div>
      {units.length === 0 ? <p class="dim">pending</p> : null}
      {units.map(({ key, unit }) => (
        <div class="unit" key={key} data-testid={`step-${key}`}>
          <div class="facts-inline">
            <Badge value={shownStatus(detail, unit.status)} />
            {unit.verdict ? (
              <span>
                verdict <strong>{unit.verdict}</strong>
              </span>
            ) : null}
            {unit.executions > 1 ? <span>{unit.executions} runs</span> : null}
            {typeof unit.outputs?.costUsd === 'number' ? (
              <span>{costLabel(unit.outputs.costUsd, step.simulated === true ? unit.outputs.costUsd : 0)}</span>
            ) : null}
            {typeof unit.outputs?.rounds === 'number' ? <span>{unit.outputs.rounds} rounds</span> : null}
            {sessionOf(detail, key, unit) === undefined ? null : (
              <a {...link(`/sessions/${sessionOf(detail, key, unit)}`)} data-testid="step-session">
                {shownStatus(detail, unit.status) === 'running' ? 'live session' : 'session'}
              </a>
            )}
            {typeof unit.outputs?.by === 'string' ? <span>by {unit.outputs.by}</span> : null}
            {step.kind === 'flow' && typeof unit.outputs?.runId === 'string' ? (
              <a {...link(`/flows/${unit.outputs.runId}`)} data-testid="subflow-run">
                sub-flow run {unit.outputs.runId}
              </a>
            ) : null}
          </div>
          {unit.error ? (
            <div class="bad">
              {unit.error.code}: {unit.error.message}
              {unit.error.hint ? <div class="hint">hint: {unit.error.hint}</div> : null}
            </div>
          ) : null}
          <FailureOutput status={unit.status} outputs={unit.outputs} />
          {step.kind === 'approval' && unit.status === 'running' && step.approval && onAnswer ? (
            <ApprovalForm
              prompt={step.approval.prompt}
              decisions={step.approval.decisions}
              onAnswer={(decision, reason) => onAnswer(key, decision, reason)}
            />
          ) : null}
          {typeof unit.outputs?.text === 'string' && unit.outputs.text !== '' ? (
            <div class="answer-text">
              <LongText text={unit.outputs.text} pre />
            </div>
          ) : null}
          {unit.outputs?.diff !== undefined ? <DiffView diff={unit.outputs.diff as Diff} /> : null}
        </div>
      ))}
    </Section>
  );
}

/**
 * An approval's or a question's decisions. A press disables every button until the server
 * answers (one answer per question wins; a second press could only lose), then shows what was
 * recorded: this answer, or — when another person, terminal or tab was first — the one that won.
 */
export function ApprovalForm({
  prompt,
  decisions,
  detail,
  onAnswer,
}: {
  prompt: string;
  decisions: Decision[];
  detail?: string;
  onAnswer: (decision: string, reason: string) => Promise<unknown>;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ answered: Answered; mine: boolean } | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const press = (decision: string) => {
    setBusy(true);
    setError(undefined);
    onAnswer(decision, reason).then(
      () =>
        setOutcome({
          answered: { decision, by: 'you', at: new Date().toISOString(), ...(reason ? { note: reason } : {}) },
          mine: true,
        }),
      (e: unknown) => {
        if (e instanceof ApiError && e.answered !== undefined) setOutcome({ answered: e.answered, mine: false });
        else {
          setError(e);
          setBusy(false);
        }
      },
    );
  };
  return (
    <div class="approval" data-testid="approval" aria-busy={busy}>
      <div class="prompt">{prompt}</div>
      {detail ? <pre class="detail">{detail}</pre> : null}
      {outcome === undefined ? (
        <>
          <input
            placeholder="reason (optional, recorded)"
            value={reason}
            disabled={busy}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
          {decisions.map((d) => (
            <button
              key={d.id}
              class={d.fail ? 'bad' : 'ok'}
              disabled={busy}
              onClick={() => press(d.id)}
              data-decision={d.id}
            >
              {d.label}
            </button>
          ))}
        </>
      ) : (
        <div class={outcome.mine ? 'answered' : 'answered other'} data-testid="answered" role="status">
          {outcome.mine ? 'Answered ' : 'Already answered: '}
          <strong>
            {decisions.find((d) => d.id === outcome.answered.decision)?.label ?? outcome.answered.decision}
          </strong>
          {outcome.mine ? '' : ` by ${outcome.answered.by} at ${new Date(outcome.answered.at).toLocaleTimeString()}`}
          {outcome.answered.note ? ` — ${outcome.answered.note}` : ''}
        </div>
      )}
      <ErrorLine error={error} />
    </div>
  );
}

/** A unit's session: named by its outputs once it finished, by its process's progress from the moment it starts. */
function sessionOf(detail: RunDetail, key: string, unit: UnitState): string | undefined {
  if (typeof unit.outputs?.sessionId === 'string') return unit.outputs.sessionId;
  return unit.status === 'running' ? detail.stepSessions?.[key] : undefined;
}

/** Why a failed step failed, in its check's or command's own last lines (the rule is the CLI's). */
function FailureOutput({ status, outputs }: { status: string; outputs: Record<string, unknown> | undefined }) {
  const output = failureOutput(status, outputs);
  if (output === undefined) return null;
  return (
    <div class="failure-output" data-testid="failure-output">
      <div class="dim">{failureOutputHeading(output)}</div>
      <LongText text={output.lines.join('\n')} pre />
    </div>
  );
}
