/** Types of build-if-stale.js (plain JavaScript, run by `npm start` and `npm run demo` before any build exists). */
export declare function buildIsStale(dir?: string): boolean;
export declare function buildIfStale(): number;
