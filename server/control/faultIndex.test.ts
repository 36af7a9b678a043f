import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memoryStore.js';
import { FaultIndex, type IndexedRule } from './faultIndex.js';

interface Rule extends IndexedRule {
  hits: number;
}

async function setup() {
  const rules = new MemoryStore().mirrored<Rule>('faults');
  const index = new FaultIndex(rules);
  const add = async (id: string, operation: string, client_id?: string) => {
    const rule: Rule = {
      id,
      seq: index.nextSeq(),
      operation,
      hits: 0,
      ...(client_id ? { match: { client_id } } : {}),
    };
    await rules.put(id, rule);
  };
  const ids = (op: string, app?: string) => [...index.candidates(op, app)].map((r) => r.id);
  return { rules, index, add, ids };
}

describe('FaultIndex', () => {
  it('gives a request only the rules of its operation scoped to its app or to every app, in creation order', async () => {
    const { add, ids } = await setup();
    await add('a1', 'getBinding', 'app-a');
    await add('any1', 'getBinding');
    await add('b1', 'getBinding', 'app-b');
    await add('a2', 'getBinding', 'app-a');
    await add('a-other-op', 'uploadPart', 'app-a');
    await add('any2', 'getBinding');
    for (let i = 0; i < 1000; i++) await add(`b-many-${i}`, 'getBinding', 'app-b');
    expect(ids('getBinding', 'app-a')).toEqual(['a1', 'any1', 'a2', 'any2']);
    expect(ids('getBinding', undefined)).toEqual(['any1', 'any2']);
    expect(ids('getBinding', 'app-c')).toEqual(['any1', 'any2']);
    expect(ids('uploadPart', 'app-a')).toEqual(['a-other-op']);
    expect(ids('uploadPart', 'app-b')).toEqual([]);
    expect(ids('completeUpload', 'app-a')).toEqual([]);
    expect(ids('getBinding', 'app-b')).toHaveLength(1003);
  });

  it('follows the mirror: a rule written by anyone is found, an older one rebuilds the index', async () => {
    const { rules, ids } = await setup();
    await rules.put('late', { id: 'late', seq: 10, operation: 'getBinding', hits: 0 });
    await rules.put('early', { id: 'early', seq: 5, operation: 'getBinding', hits: 0 });
    expect(ids('getBinding', 'app-a')).toEqual(['early', 'late']);
  });

  it('hands out rules as stored now, and rebuilds after deletes and on a fresh start', async () => {
    const { rules, index, add, ids } = await setup();
    await add('a1', 'getBinding', 'app-a');
    await add('any1', 'getBinding');
    await rules.put('a1', { ...rules.peek('a1')!, hits: 5 });
    expect([...index.candidates('getBinding', 'app-a')][0]!.hits).toBe(5);
    await rules.delete('any1');
    expect(ids('getBinding', 'app-a')).toEqual(['a1']); // a removed rule is skipped even before a rebuild
    index.invalidate();
    expect(index.nextSeq()).toBe(2);
    await add('a3', 'getBinding', 'app-a');
    expect(ids('getBinding', 'app-a')).toEqual(['a1', 'a3']);
    // A second index over the same records (a restart) finds the same rules.
    expect([...new FaultIndex(rules).candidates('getBinding', 'app-a')].map((r) => r.id)).toEqual([
      'a1',
      'a3',
    ]);
  });
});
