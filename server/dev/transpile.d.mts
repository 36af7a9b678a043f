export declare const SOURCE_DIRS: string[];
export declare const isTest: (path: string) => boolean;
export declare function transpileFiles(root: string, files: string[], outdir: string): Promise<void>;
export declare function transpileSources(root: string): Promise<number>;
