/** Types of node-version.js (plain JavaScript, so the CLI can check the Node version before loading anything). */
export declare const SUPPORTED_NODE: string;
export declare function unsupportedNode(version: string): string | null;
export declare function requireSupportedNode(): void;
