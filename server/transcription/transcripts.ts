import { SimError, type ValidationIssue } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import { fixtureError } from '../spec/fixtures.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import type { AttachedTranscript, Transcript } from './model.js';
import { readSidecars, SIDECAR_SUFFIX } from './transcriptSidecars.js';

/**
 * The rules a schema cannot express: segments in order, none overlapping, none ending
 * before it starts. Issues are located as in a request body (`body.segments.<i>.<field>`).
 */
export function transcriptIssues(t: Transcript): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  let prevEnd = 0;
  t.segments.forEach((s, i) => {
    if (s.end < s.start)
      issues.push({
        loc: ['body', 'segments', i, 'end'],
        msg: 'end must be at least start',
        type: 'value_error',
        input: s.end,
      });
    else if (s.start < prevEnd)
      issues.push({
        loc: ['body', 'segments', i, 'start'],
        msg: `segments must be in order without overlap: start must be at least the previous end (${prevEnd})`,
        type: 'value_error',
        input: s.start,
      });
    prevEnd = Math.max(prevEnd, s.end);
  });
  return issues;
}

/**
 * Transcripts attached to audio by the MD5 of its bytes. Global, not per app: they describe
 * the audio, which speaks the same words whoever uploads it. Stored in the `transcripts`
 * collection (so they survive restarts); a full reset empties it and the seed reloads the
 * fixture sidecars; a per-app reset keeps them.
 */
export class TranscriptLibrary implements Lifecycle {
  private readonly records: Collection<AttachedTranscript>;

  constructor(store: Store) {
    this.records = store.collection<AttachedTranscript>('transcripts');
  }

  /** The transcript of the audio with this MD5 (hex, any case), if one is attached. */
  forMd5(md5: string): Promise<Transcript | undefined> {
    return this.records.get(md5.toLowerCase());
  }

  /** One page of the attached transcripts in MD5 order (the control API's listing). */
  page(q: PageQuery): Promise<Page<AttachedTranscript>> {
    return recordPage(this.records, (t) => t.md5, q);
  }

  /** Attach (or replace); only the documented fields are kept. */
  async attach(md5: string, t: Transcript, source: AttachedTranscript['source'] = 'api', file?: string) {
    const issues = transcriptIssues(t);
    if (issues.length > 0) throw SimError.validation(issues);
    const rec: AttachedTranscript = {
      md5: md5.toLowerCase(),
      source,
      ...(file !== undefined ? { file } : {}),
      language: t.language,
      segments: t.segments.map(({ start, end, text, speaker }) => ({ start, end, text, speaker })),
    };
    await this.records.put(rec.md5, rec);
    return rec;
  }

  async detach(md5: string): Promise<void> {
    if (!(await this.records.delete(md5.toLowerCase())))
      throw SimError.notFound('TRANSCRIPT_NOT_FOUND', `No transcript is attached to audio with MD5 ${md5}.`);
  }

  /**
   * Every fixture sidecar readable and valid (schema, and segments in order), before a reset
   * wipes anything: a broken one is a 422 naming file and field, and the state stays.
   */
  async checkFixtures(dir: string): Promise<void> {
    for (const s of await readSidecars(dir)) {
      const shown = `${s.file}${SIDECAR_SUFFIX}`;
      const issues = transcriptIssues(s.transcript).map((i) => ({
        ...i,
        loc: ['fixtures', shown, ...i.loc.slice(1)],
      }));
      if (issues.length > 0) throw fixtureError(shown, issues);
    }
  }

  /** Fixture sidecars (`<audio file>.transcript.json`), attached to their audio's MD5 (checked first). */
  async seed(dir: string): Promise<void> {
    for (const s of await readSidecars(dir)) await this.attach(s.md5, s.transcript, 'fixture', s.file);
  }
}
