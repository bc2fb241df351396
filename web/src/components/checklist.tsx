import type { FeedEvent } from '../types';

interface Item {
  id: number;
  text: string;
  done: boolean;
}

/** The agent's checklist as its last `checklist` event left it (a reset empties it); undefined when it kept none. */
export function latestChecklist(events: readonly FeedEvent[]): Item[] | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!.event;
    if (event.type === 'checklist' && Array.isArray(event.items)) return event.items as Item[];
    if (event.type === 'reset') return [];
  }
  return undefined;
}

/** The checklist neo's agent keeps with its workflow tool. */
export function Checklist({ events }: { events: readonly FeedEvent[] }) {
  const items = latestChecklist(events);
  if (items === undefined) return null;
  if (items.length === 0) return <p class="dim">The checklist is empty.</p>;
  return (
    <ul class="checklist" data-testid="checklist">
      {items.map((item) => (
        <li key={item.id} class={item.done ? 'done' : ''} data-done={String(item.done)}>
          <input type="checkbox" checked={item.done} disabled /> {item.id}. {item.text}
        </li>
      ))}
    </ul>
  );
}
