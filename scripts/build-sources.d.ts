/** Types of build-sources.js (plain JavaScript, read by the build before any build exists). */
export declare const BUILD_SOURCES: { dirs: string[]; files: string[] };
