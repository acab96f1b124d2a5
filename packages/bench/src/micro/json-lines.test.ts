import { describe, expect, it } from 'vitest';
import { parseJsonLines, withField } from './json-lines.js';

describe('parseJsonLines', () => {
  it('keeps JSON objects and sets other lines apart', () => {
    const { records, other } = parseJsonLines(
      '{"bench":"workqueue","opsPerSec":5}\nWarning: something\n\n{"bench":"informer"}\n[1,2]\n{broken\n',
    );
    expect(records).toEqual([{ bench: 'workqueue', opsPerSec: 5 }, { bench: 'informer' }]);
    expect(other).toEqual(['Warning: something', '[1,2]', '{broken']);
    expect(withField(records, 'bench', 'informer')).toEqual([{ bench: 'informer' }]);
  });
});
