import { describe, expect, it } from 'vitest';
import { adminSpec, apiSpec, SpecIndex } from './openapi.js';
import { missingTransportResponses, transportResponses } from './transportResponses.js';

describe.each([apiSpec(), adminSpec()])('transport answers of $name', (spec) => {
  it('are declared on every operation, by reference to the shared responses', () => {
    const problems = [...spec.operations.values()].flatMap((op) => missingTransportResponses(spec, op));
    expect(problems).toEqual([]);
  });

  it('name responses the document has', () => {
    const components = Object.keys(spec.doc.components?.responses ?? {});
    for (const op of spec.operations.values())
      for (const name of Object.values(transportResponses(spec, op)))
        expect(components, op.id).toContain(name);
  });
});

describe('missingTransportResponses', () => {
  it('names an operation that lacks one, and one that points elsewhere', () => {
    const doc = structuredClone(adminSpec().doc);
    const listApps = doc.paths!['/apps']!.get!;
    delete listApps.responses!['431'];
    listApps.responses!['5XX'] = { $ref: '#/components/responses/AdminForbidden' };
    const spec = new SpecIndex('admin.openapi.yaml', doc, '');
    expect(missingTransportResponses(spec, spec.get('listApps'))).toEqual([
      'listApps does not declare 431: add "431": {$ref: "#/components/responses/HeadersTooLarge"}',
      'listApps 5XX refers to #/components/responses/AdminForbidden, not #/components/responses/ServerError',
    ]);
  });

  it('asks the storage host for its XML variants, and 413 only of JSON bodies', () => {
    const put = transportResponses(apiSpec(), apiSpec().get('uploadPart'));
    expect(put).toEqual({
      '400': 'StorageBadRequest',
      '422': 'StorageValidationFailed',
      '431': 'StorageHeadersTooLarge',
      '5XX': 'StorageServerError',
    });
    expect(transportResponses(adminSpec(), adminSpec().get('putTranscript'))['413']).toBe('PayloadTooLarge');
  });
});
