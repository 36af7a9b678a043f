export declare const ASSET_STEPS: string[];
export declare const BUILD_STAMPS: string[];
export declare function buildAssets(root: string): Promise<number>;
