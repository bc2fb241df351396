/**
 * The run's table of steps is persistent: `with` shares every chunk but the one it replaces and
 * never writes into a chunk another table holds; its order is fixed when it is made, so equal
 * contents compare equal; its JSON is the plain record snapshot.json and the routes always had;
 * the redactor sees that JSON, never the chunks.
 */
import { describe, expect, it } from 'vitest';
import { pendingUnit, type StepState } from '../../../engine/flow/core/state.js';
import { StepTable } from '../../../engine/flow/core/step-table.js';
import { redactDeep, redactor } from '../../../engine/util/redact.js';

const done = (n: number): StepState => ({ ...pendingUnit(), status: 'succeeded', outputs: { n } });
const ids = (count: number) => Array.from({ length: count }, (_, i) => `s${i}`);
const pendingTable = (count: number) => StepTable.of(ids(count).map((id) => [id, pendingUnit()]));

describe('the step table', () => {
  it('replaces one entry and leaves the table it came from as it was', () => {
    const before = pendingTable(100);
    const json = JSON.stringify(before);
    const after = before.with('s40', done(1));
    const other = before.with('s40', done(2));
    expect(after.get('s40')).toEqual(done(1));
    expect(other.get('s40')).toEqual(done(2));
    // A `with` that wrote into the shared chunk would show here, in the tables made before it.
    expect(before.get('s40')).toEqual(pendingUnit());
    expect(after.get('s40')).toEqual(done(1));
    expect(JSON.stringify(before)).toBe(json);
    // Only the replaced entry's chunk is new; the others are the same arrays.
    const changed = after.chunks.map((chunk, i) => chunk !== before.chunks[i]);
    expect(changed.filter(Boolean)).toHaveLength(1);
    expect(after.ids()).toBe(before.ids());
  });

  it('keeps the order it was made with, whatever order the entries change in', () => {
    let table = pendingTable(70);
    for (const i of [69, 3, 40, 0, 33]) table = table.with(`s${i}`, done(i));
    expect(table.ids()).toEqual(ids(70));
    expect(table.entries().map(([id]) => id)).toEqual(ids(70));
    expect(table.values()).toHaveLength(70);
    expect(table.size).toBe(70);
    expect(table.values()[40]).toEqual(done(40));
    expect(Object.keys(table.toJSON())).toEqual(ids(70));
    expect(table.has('s69')).toBe(true);
    expect(table.has('s70')).toBe(false);
    expect(table.get('s70')).toBeUndefined();
  });

  it('gives the record JSON.stringify always wrote, and reads it back', () => {
    // Ids may be digits: the record orders them as any object does, the table keeps the plan's.
    const order = ['build', '10', 'test', '2'];
    const record: Record<string, StepState> = {};
    for (const [i, id] of order.entries()) record[id] = done(i);
    const table = StepTable.of(order.map((id, i) => [id, done(i)]));
    expect(table.ids()).toEqual(order);
    expect(JSON.stringify(table)).toBe(JSON.stringify(record));
    expect(JSON.stringify({ steps: table })).toBe(JSON.stringify({ steps: record }));
    expect(StepTable.from(JSON.parse(JSON.stringify(table)) as Record<string, StepState>).toJSON()).toEqual(record);
  });

  it('is deep-equal to another table exactly when its contents and order are', () => {
    const built = pendingTable(50).with('s7', done(7)).with('s45', done(45));
    const fresh = StepTable.of(
      ids(50).map((id) => [id, id === 's7' ? done(7) : id === 's45' ? done(45) : pendingUnit()]),
    );
    expect(built).toEqual(fresh);
    expect(built).not.toEqual(fresh.with('s45', done(46)));
    expect(built).not.toEqual(pendingTable(50));
    expect(pendingTable(3)).not.toEqual(StepTable.of(['s1', 's0', 's2'].map((id) => [id, pendingUnit()])));
  });

  it('adds and removes ids explicitly, and refuses to add one through `with`', () => {
    const table = pendingTable(40).with('s1', done(1));
    expect(() => table.with('new', done(0))).toThrow(/no step "new"/);
    const grown = table.adding([['new', done(9)]]);
    expect(grown.ids()).toEqual([...ids(40), 'new']);
    expect(grown.get('new')).toEqual(done(9));
    expect(table.has('new')).toBe(false);
    const shrunk = grown.without(['s0', 's39']);
    expect(shrunk.ids()).toEqual([...ids(40).slice(1, 39), 'new']);
    expect(shrunk.get('s1')).toEqual(done(1));
    // The same contents reached by adding and removing as by making the table outright.
    expect(shrunk).toEqual(StepTable.of(shrunk.entries()));
    // Adding an id the table has replaces it where it stands, as assigning a record's key does.
    expect(table.adding([['s1', done(5)]]).ids()).toEqual(ids(40));
    expect(table.adding([['s1', done(5)]]).get('s1')).toEqual(done(5));
  });

  it('is redacted through its JSON and stays a table', () => {
    const secret = 'hunter2-secret-value';
    const table = pendingTable(40).with('s33', { ...done(1), outputs: { said: `the key is ${secret}` } });
    const redact = redactor([{ name: 'KEY', value: secret }]);
    const state = { runId: 'r', steps: table };
    const out = redactDeep(state, redact);
    expect(JSON.stringify(out)).not.toContain(secret);
    expect(out.steps).toBeInstanceOf(StepTable);
    expect(out.steps.get('s33')?.outputs).toEqual({ said: 'the key is [redacted ${KEY}]' });
    expect(out.steps.ids()).toEqual(table.ids());
    // The table redacted is untouched, and one with nothing to redact comes back as it was.
    expect(table.get('s33')?.outputs).toEqual({ said: `the key is ${secret}` });
    const clean = pendingTable(40);
    expect(redactDeep({ steps: clean }, redact).steps).toBe(clean);
  });
});
