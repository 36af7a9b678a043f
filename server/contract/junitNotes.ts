import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const xmlEscape = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');

interface Result {
  file: string;
  name: string;
  state: string;
  reason?: string;
}

/**
 * vitest's JUnit reporter writes `<skipped/>` without the reason; CI dashboards show only the
 * XML, so copy each skip reason from contract-results.json into its `<skipped message="…"/>`.
 * Best effort: a missing or unexpected file leaves the XML as vitest wrote it.
 */
export async function addSkipReasons(reportsDir: string): Promise<void> {
  const junitPath = join(reportsDir, 'contract-junit.xml');
  let xml: string;
  let results: Result[];
  try {
    xml = await readFile(junitPath, 'utf8');
    results = (
      JSON.parse(await readFile(join(reportsDir, 'contract-results.json'), 'utf8')) as { results: Result[] }
    ).results;
  } catch {
    return;
  }
  for (const r of results) {
    if (r.state !== 'skipped' || !r.reason) continue;
    const open = `<testcase classname="${xmlEscape(r.file)}" name="${xmlEscape(r.name)}"`;
    const at = xml.indexOf(open);
    if (at < 0) continue;
    const end = xml.indexOf('</testcase>', at);
    const skipped = xml.indexOf('<skipped/>', at);
    if (skipped < 0 || skipped > end) continue;
    xml = `${xml.slice(0, skipped)}<skipped message="${xmlEscape(r.reason)}"/>${xml.slice(skipped + '<skipped/>'.length)}`;
  }
  await writeFile(junitPath, xml);
}
