/**
 * The two services one server can serve (`tradeseal serve --only`), apart from the app that builds them
 * (./app.ts): the CLI defines its flags from this list without loading Fastify.
 */
export type ServiceName = 'engine' | 'signals';
export const SERVICES: readonly ServiceName[] = ['engine', 'signals'];
