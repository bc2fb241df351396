import { describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { routingAdvice } from '../../../engine/routing/index.js';
import { tempDir } from '../../helpers/temp.js';

describe('routing advice from the packaged routing data', () => {
  test("the first tag naming a task class, read for the backend's cost profile, limited to what it accepts", async () => {
    const { set } = await loadDefinitions({ cwd: await tempDir(), home: await tempDir() });
    const routings = set.list('routing').map((d) => ({ id: d.id, data: d.data }));
    const backend = (id: string) => ({ ...set.get('backend', id)!.data });
    expect(routingAdvice(routings, backend('claude-code'), ['typescript', 'docs'])).toEqual({
      source: 'routing default',
      taskClass: 'docs',
      modelClass: 'standard',
      effort: 'low',
      note: 'Prose from existing code needs little reasoning; keep it fast.',
    });
    expect(routingAdvice(routings, backend('neo'), ['docs'])).toMatchObject({ modelClass: 'cheap', effort: 'low' });
    expect(routingAdvice(routings, backend('script'), ['docs'])).toEqual({
      source: 'routing default',
      taskClass: 'docs',
      note: 'Prose from existing code needs little reasoning; keep it fast.',
    });
    expect(routingAdvice(routings, backend('claude-code'), ['typescript'])).toBeUndefined();
  });
});
