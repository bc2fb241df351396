import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorLine, Section, useReload, useStream } from '../components/common';
import { link } from '../router';
import type { InboxItem } from '../types';
import { ApprovalForm } from './run';

/** Every approval step and persona question waiting for a person, answerable here. */
export function ApprovalsPage() {
  const inbox = useReload(() => api<{ items: InboxItem[] }>('/api/approvals'), []);
  useStream('/api/events?topics=approval_requested,flow_run_event', () => inbox.bump());
  const [error, setError] = useState<unknown>(undefined);
  const items = inbox.value?.items ?? [];
  return (
    <Section title="Approvals">
      <ErrorLine error={inbox.error ?? error} />
      {inbox.value !== undefined && items.length === 0 ? <p class="dim">Nothing is waiting for you.</p> : null}
      <ul class="inbox" data-testid="inbox">
        {items.map((item) => (
          <li key={`${item.runId}/${item.key}`} data-key={item.key}>
            <div class="facts-inline">
              <strong>{item.key}</strong>
              {item.kind === 'flow' ? (
                <a {...link(`/flows/${item.runId}`)}>
                  {item.flow ?? 'run'} <code>{item.runId}</code>
                </a>
              ) : (
                <span>
                  question of <code>{item.runId}</code>
                </span>
              )}
              {item.live ? null : <span class="dim">no process waits: applies on resume</span>}
            </div>
            <ApprovalForm
              prompt={item.prompt}
              decisions={item.decisions}
              {...(item.detail === undefined ? {} : { detail: item.detail })}
              onAnswer={(decision, reason) =>
                api(`/api/approvals/${item.runId}/${item.key}`, { decision, ...(reason ? { reason } : {}) }).then(
                  () => {
                    setError(undefined);
                    inbox.bump();
                  },
                  setError,
                )
              }
            />
          </li>
        ))}
      </ul>
    </Section>
  );
}
