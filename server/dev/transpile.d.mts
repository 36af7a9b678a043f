export declare const TRANSPILE: {
  format: 'esm';
  target: 'es2022';
  tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: boolean } };
};
export declare const SOURCE_DIRS: string[];
export declare const isTest: (path: string) => boolean;
export declare function transpileSources(root: string): Promise<number>;
