/**
 * A small XML 1.0 writer for the JUnit report: elements with attributes, text, and children,
 * escaped and printed with two-space indentation. Characters XML 1.0 cannot hold at all
 * (control characters such as the ESC of terminal colours, lone surrogates) are dropped, since
 * no escape makes them legal and a CI system's parser rejects the whole file for one of them.
 */
export interface XmlElement {
  name: string;
  attrs?: Record<string, string | number>;
  text?: string;
  children?: XmlElement[];
}

// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// In attributes, tabs and line breaks are escaped too: a parser normalises raw ones to spaces.
const ATTR_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

const escapeText = (s: string): string =>
  s.replace(NOT_XML_CHAR, '').replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!);

const escapeAttr = (s: string): string =>
  s.replace(NOT_XML_CHAR, '').replace(/[&<>"\t\n\r]/g, (c) => ATTR_ESCAPES[c]!);

function render(e: XmlElement, indent: string, out: string[]): void {
  const attrs = Object.entries(e.attrs ?? {})
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
  const children = e.children ?? [];
  if (e.text === undefined && children.length === 0) {
    out.push(`${indent}<${e.name}${attrs}/>`);
  } else if (children.length === 0) {
    out.push(`${indent}<${e.name}${attrs}>${escapeText(e.text ?? '')}</${e.name}>`);
  } else {
    out.push(`${indent}<${e.name}${attrs}>${e.text === undefined ? '' : escapeText(e.text)}`);
    for (const c of children) render(c, `${indent}  `, out);
    out.push(`${indent}</${e.name}>`);
  }
}

/** The document: the XML declaration and `root`, ending with a line break. */
export function xmlDocument(root: XmlElement): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  render(root, '', out);
  return `${out.join('\n')}\n`;
}
