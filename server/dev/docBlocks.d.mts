export interface DocBlock {
  /** The fence's line, 1-based. */
  line: number;
  lang: string;
  body: string;
  /** `<!-- snippet-test -->`: run; `<!-- not-run: reason -->`: not, and why; undefined: unmarked. */
  marker: { run: true } | { run: false; reason: string } | undefined;
}
export declare function fencedBlocks(markdown: string): DocBlock[];
export declare function runScript(markdown: string, file: string): Promise<string>;
