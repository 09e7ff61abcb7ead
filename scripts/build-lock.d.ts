/** Types of build-lock.js (plain JavaScript, run by `npm run build` before any build exists). */
export declare function withBuildLock<T>(root: string, fn: () => Promise<T>): Promise<T>;
