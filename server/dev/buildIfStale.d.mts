export declare const projectRoot: string;
export declare function staleReason(root: string): string | undefined;
export declare function buildIfStale(root: string): Promise<number>;
export declare function quickBuild(root: string): Promise<number>;
