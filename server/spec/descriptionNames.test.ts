import { describe, expect, it } from 'vitest';
import { docs } from '../testing/specDocuments.js';

// The device protocol's descriptions name fields as its schemas spell them: a client who reads
// `device_token` in the text and sends it where the schema says `deviceToken` is ignored.
// (The control API's texts also name the bridges' camelCase event fields, on purpose.)

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function walk(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) for (const v of node) walk(v, visit);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      visit(k, v);
      walk(v, visit);
    }
}

describe.each(docs.filter((d) => d.name.includes('device')))('$name', ({ doc }) => {
  it('spells every field a description names in backticks as its schema does', () => {
    const fields = new Set<string>();
    const texts: string[] = [];
    walk(doc, (key, value) => {
      if (key === 'properties' && value && typeof value === 'object')
        for (const name of Object.keys(value)) fields.add(name);
      if ((key === 'description' || key === 'summary') && typeof value === 'string') texts.push(value);
    });
    const misspelt: string[] = [];
    for (const text of texts)
      for (const [, name] of text.matchAll(/`([A-Za-z]+(?:_[a-z]+)*)`/g)) {
        if (!name || fields.has(name)) continue;
        const other = name.includes('_') ? camel(name) : snake(name);
        if (other !== name && fields.has(other)) misspelt.push(`${name} (the schema says ${other})`);
      }
    expect([...new Set(misspelt)]).toEqual([]);
  });
});
