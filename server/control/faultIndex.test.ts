import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memoryStore.js';
import { FaultIndex, type IndexedRule, type IndexSubject } from './faultIndex.js';

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
  const ids = (op: string, app?: string, more: Partial<IndexSubject> = {}) =>
    [...index.candidates({ operation: op, client_id: app, path: '/', ...more })].map((r) => r.id);
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
    expect(ids('getBinding', 'app-a')).toEqual(['a1', 'any1']);
    expect([...index.candidates({ operation: 'getBinding', client_id: 'app-a', path: '/' })][0]!.hits).toBe(
      5,
    );
    await rules.delete('any1');
    expect(ids('getBinding', 'app-a')).toEqual(['a1']); // a removed rule is skipped even before a rebuild
    index.invalidate();
    expect(index.nextSeq()).toBe(2);
    await add('a3', 'getBinding', 'app-a');
    expect(ids('getBinding', 'app-a')).toEqual(['a1', 'a3']);
    // A second index over the same records (a restart) finds the same rules.
    const again = new FaultIndex(rules).candidates({
      operation: 'getBinding',
      client_id: 'app-a',
      path: '/',
    });
    expect([...again].map((r) => r.id)).toEqual(['a1', 'a3']);
  });

  it('gives a request only the rules whose serial, user, part or path fragment it has, in creation order', async () => {
    const { rules, index, ids } = await setup();
    const put = (id: string, extra: Partial<Rule>) =>
      rules.put(id, { id, seq: index.nextSeq(), operation: 'getBinding', hits: 0, ...extra });
    // 10,000 global rules this request can never match: other paths, and probability 0.
    for (let i = 0; i < 5000; i++) await put(`path-${i}`, { match: { path_contains: `/elsewhere/${i}/` } });
    for (let i = 0; i < 5000; i++) await put(`never-${i}`, { probability: 0 });
    await put('sn', { match: { sn: '881abc' } });
    await put('path', { match: { path_contains: 'cursed' } });
    await put('user', { match: { user_id: 'u1' } });
    await put('part', { match: { part_number: 2 } });
    await put('any', {});
    await put('empty-path', { match: { path_contains: '' } });
    await put('outcome', { transcription_outcome: 'FAILURE' });
    await put('path-and-sn', { match: { path_contains: 'cursed', sn: 'OTHER' } });
    const subject = { sn: '881ABC', user_id: 'u1', part_number: 2, path: '/a/cursed/b?cursed=1' };
    expect(ids('getBinding', 'app-a', subject)).toEqual(['sn', 'path', 'user', 'part', 'any', 'empty-path']);
    expect(ids('getBinding', 'app-a', { path: '/elsewhere/42/x' })).toEqual(['path-42', 'any', 'empty-path']);
    expect(ids('getBinding', 'app-a', { path: '/elsewhere/4/' })).toEqual(['path-4', 'any', 'empty-path']);
    expect([...index.outcomes('app-a')].map((r) => r.id)).toEqual([]);
    expect(ids('getBinding', undefined, { sn: 'OTHER', path: 'cursed' })).toEqual([
      'path',
      'any',
      'empty-path',
      'path-and-sn',
    ]);
  });

  it('keeps outcome rules apart, and drops used-up rules once many are', async () => {
    const { rules, index, ids } = await setup();
    const put = (id: string, extra: Partial<Rule>) =>
      rules.put(id, { id, seq: index.nextSeq(), operation: 'createTranscription', hits: 0, ...extra });
    await put('outcome', { transcription_outcome: 'FAILURE', match: { path_contains: 'x' } });
    for (let i = 0; i < 100; i++) await put(`once-${i}`, { remaining: 1 });
    expect([...index.outcomes('app-a')].map((r) => r.id)).toEqual(['outcome']);
    expect(ids('createTranscription', 'app-a')).toHaveLength(100);
    for (let i = 0; i < 99; i++) await rules.put(`once-${i}`, { ...rules.peek(`once-${i}`)!, remaining: 0 });
    // Used up rules are passed over by the caller until enough of them make the index rebuild.
    expect([...index.candidates({ operation: 'createTranscription', path: '/' })].length).toBe(1);
    expect(ids('createTranscription', 'app-a')).toEqual(['once-99']);
  });
});
