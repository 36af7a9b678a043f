export declare const projectRoot: string;
export declare function staleReason(root: string): string | undefined;
export declare function buildIfStale(root: string, opts?: { full?: boolean }): Promise<number>;
export declare function fullBuild(root: string): Promise<number>;
export declare function quickBuild(root: string): Promise<number>;
