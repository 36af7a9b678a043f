import { describe, expect, it } from 'vitest';
import { apiSpec } from './openapi.js';
import { undeclaredFields } from './undeclaredFields.js';

const PARAMS = { $ref: '#/components/schemas/TranscriptionParams' };
const find = (value: unknown) => undeclaredFields(apiSpec(), PARAMS, value, ['params']);

describe('undeclaredFields', () => {
  it('names undeclared members at every level the schema describes, following $refs', () => {
    expect(
      find({
        foo: 1,
        hotwords: 'a,b',
        transcribe: { language: 'auto', detection_level: 'chapter', bar: { deep: true } },
        diarization: { enabled: true, speakers: 2 },
      }),
    ).toEqual([
      ['params', 'foo'],
      ['params', 'transcribe', 'bar'],
      ['params', 'diarization', 'speakers'],
    ]);
  });

  it('finds nothing in declared members only, or in values that are not objects', () => {
    expect(find({ transcribe: { language: 'en-US', model: 'm' }, vad: { decode_silence: true } })).toEqual(
      [],
    );
    expect(find(undefined)).toEqual([]);
    expect(find(['x'])).toEqual([]);
  });

  it('treats keys of a map schema as declared, and never mistakes inherited names for members', () => {
    const map = { type: 'object', properties: { a: {} }, additionalProperties: { type: 'number' } };
    expect(undeclaredFields(apiSpec(), map, { a: 1, anything: 2 })).toEqual([]);
    expect(find(JSON.parse('{"constructor": 1, "__proto__": {"x": 1}, "toString": 2}'))).toEqual([
      ['params', 'constructor'],
      ['params', '__proto__'],
      ['params', 'toString'],
    ]);
  });
});
