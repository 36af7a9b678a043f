export interface Supervised {
  readonly pid: number | undefined;
  stop(): Promise<void>;
}
export declare function supervise(options: {
  command: string;
  args: string[];
  paths: string[];
  ready?: Promise<void>;
  debounceMs?: number;
  log?: (message: string) => void;
}): Supervised;
