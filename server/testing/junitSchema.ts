/**
 * Checks a JUnit XML report against the rules of the JUnit schema CI systems read (Jenkins'
 * junit-10.xsd, which GitLab, GitHub reporters and Azure follow), written out as code so no
 * XML library is needed: XML 1.0 well-formedness (every character legal, every `&` an entity,
 * no raw `<` in an attribute, tags balanced), then per element its allowed attributes, the
 * required ones, the allowed children in schema order, numeric attributes, and the totals.
 * Returns the problems found (empty: valid).
 */
interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

const XML_CHAR = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(s: string, problems: string[]): string {
  return s.replace(/&([^;]*);?/g, (all, ref: string) => {
    if (!all.endsWith(';')) problems.push(`bare & in ${JSON.stringify(s)}`);
    if (ref in NAMED) return NAMED[ref]!;
    const n = /^#x([0-9a-f]+)$/i.exec(ref)?.[1] ?? /^#(\d+)$/.exec(ref)?.[1];
    if (n === undefined) problems.push(`unknown entity &${ref};`);
    return n === undefined ? '' : String.fromCodePoint(Number.parseInt(n, ref[1] === 'x' ? 16 : 10));
  });
}

/** A minimal XML 1.0 parser (no DTD, CDATA or comments: the report never writes them). */
function parseXml(xml: string, problems: string[]): Element | undefined {
  if (!XML_CHAR.test(xml)) problems.push('holds characters XML 1.0 does not allow');
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  if (body === xml) problems.push('no XML declaration');
  const stack: Element[] = [{ name: '#document', attrs: {}, children: [], text: '' }];
  const TOKEN = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*"[^"]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (const [, close, name, attrText, selfClose, text, stray] of body.matchAll(TOKEN)) {
    const top = stack[stack.length - 1]!;
    if (stray) problems.push('a < that opens no tag');
    else if (text !== undefined) top.text += decode(text, problems);
    else if (close) {
      if (top.name !== name) problems.push(`</${name}> closes <${top.name}>`);
      else stack.pop();
    } else {
      const attrs: Record<string, string> = {};
      for (const [, k, v] of (attrText ?? '').matchAll(/([A-Za-z_][\w.-]*)\s*=\s*"([^"]*)"/g)) {
        if (v!.includes('<')) problems.push(`raw < in attribute ${k}`);
        if (k! in attrs) problems.push(`attribute ${k} twice on <${name}>`);
        attrs[k!] = decode(v!, problems);
      }
      const e: Element = { name: name!, attrs, children: [], text: '' };
      top.children.push(e);
      if (!selfClose) stack.push(e);
    }
  }
  if (stack.length !== 1) problems.push(`<${stack[stack.length - 1]!.name}> is never closed`);
  const [root, ...more] = stack[0]!.children;
  if (more.length > 0) problems.push('more than one root element');
  if (stack[0]!.text.trim()) problems.push('text outside the root element');
  return root;
}

interface Rule {
  required: string[];
  optional: string[];
  /** Allowed children (the schema's choices: any order, any number). */
  children: string[];
}

// junit-10.xsd (jenkinsci/xunit-plugin, the schema Jenkins validates against; GitLab and
// GitHub's reporters read the same elements), for the elements the report may hold.
const RULES: Record<string, Rule> = {
  testsuites: {
    required: [],
    optional: ['name', 'time', 'tests', 'failures', 'errors'],
    children: ['testsuite'],
  },
  testsuite: {
    required: ['name', 'tests', 'failures', 'errors'],
    optional: ['group', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url'],
    children: ['testsuite', 'properties', 'testcase', 'system-out', 'system-err'],
  },
  properties: { required: [], optional: [], children: ['property'] },
  property: { required: ['name', 'value'], optional: [], children: [] },
  testcase: {
    required: ['name'],
    optional: ['time', 'classname', 'group'],
    children: ['skipped', 'error', 'failure', 'system-out', 'system-err'],
  },
  failure: { required: [], optional: ['type', 'message'], children: [] },
  error: { required: [], optional: ['type', 'message'], children: [] },
  skipped: { required: [], optional: ['type', 'message'], children: [] },
  'system-out': { required: [], optional: [], children: [] },
  'system-err': { required: [], optional: [], children: [] },
};
// The schema's SUREFIRE_TIME (seconds, optional thousands commas); counts are plain integers.
const TIME = /^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$/;
const COUNTS = ['tests', 'failures', 'errors', 'skipped'];

function checkElement(e: Element, path: string, problems: string[]): void {
  const rule = RULES[e.name];
  if (!rule) {
    problems.push(`${path}: <${e.name}> is not a JUnit element`);
    return;
  }
  for (const a of rule.required)
    if (!(a in e.attrs)) problems.push(`${path}: required attribute ${a} missing`);
  for (const [a, v] of Object.entries(e.attrs)) {
    if (!rule.required.includes(a) && !rule.optional.includes(a))
      problems.push(`${path}: attribute ${a} is not allowed`);
    if (a === 'time' && !TIME.test(v)) problems.push(`${path}: time="${v}" is not a SUREFIRE_TIME`);
    if (COUNTS.includes(a) && e.name.startsWith('testsuite') && !/^\d+$/.test(v))
      problems.push(`${path}: ${a}="${v}" is not a count`);
  }
  if (rule.children.length === 0 && e.children.length > 0)
    problems.push(`${path}: <${e.name}> holds elements`);
  if (
    e.name !== 'failure' &&
    e.name !== 'error' &&
    e.name !== 'skipped' &&
    !e.name.startsWith('system-') &&
    e.text.trim()
  )
    problems.push(`${path}: text in <${e.name}>`);
  for (const [i, c] of e.children.entries()) {
    if (!rule.children.includes(c.name)) problems.push(`${path}: <${c.name}> not allowed in <${e.name}>`);
    checkElement(c, `${path}/${c.name}[${i}]`, problems);
  }
}

/** The totals a CI system shows must add up: tests, failures, errors, skipped per suite and overall. */
function checkTotals(root: Element, problems: string[]): void {
  const cases = (s: Element) => s.children.filter((c) => c.name === 'testcase');
  const having = (cs: Element[], kind: string) =>
    cs.filter((c) => c.children.some((x) => x.name === kind)).length;
  const tally = (cs: Element[]) => ({
    tests: cs.length,
    failures: having(cs, 'failure'),
    errors: having(cs, 'error'),
    skipped: having(cs, 'skipped'),
  });
  const compare = (e: Element, where: string, t: Record<string, number>) => {
    for (const [k, n] of Object.entries(t))
      if (k in e.attrs && Number(e.attrs[k]) !== n)
        problems.push(`${where}: ${k}="${e.attrs[k]}" but ${n} counted`);
  };
  const suites = root.children.filter((c) => c.name === 'testsuite');
  for (const s of suites) compare(s, `testsuite ${s.attrs.name}`, tally(cases(s)));
  compare(root, 'testsuites', tally(suites.flatMap(cases)));
}

/** Problems of a JUnit report (its text): empty when it is well-formed and follows the schema. */
export function junitProblems(xml: string): string[] {
  const problems: string[] = [];
  const root = parseXml(xml, problems);
  if (!root) return [...problems, 'no root element'];
  if (root.name !== 'testsuites' && root.name !== 'testsuite')
    problems.push(`root is <${root.name}>, not <testsuites> or <testsuite>`);
  checkElement(root, root.name, problems);
  if (root.name === 'testsuites') checkTotals(root, problems);
  return problems;
}
