/**
 * `documented(app)`: every response `app.inject()` gives from then on is checked against the API document
 * the app serves (./openapi-responses.ts), and a response that is not as documented fails the test that
 * received it, naming the request and what differs. For the integration tests that drive a Fastify instance
 * directly rather than through a harness that already checks (./engine.ts does).
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import type { OpenApiDocument } from './openapi.js';
import { responseChecker } from './openapi-responses.js';

export async function documented<T extends FastifyInstance>(app: T): Promise<T> {
  await app.ready();
  const checker = responseChecker(app.swagger() as unknown as OpenApiDocument);
  const inject = app.inject.bind(app) as (o: InjectOptions | string) => Promise<LightMyRequestResponse>;
  const checked = async (o: InjectOptions | string): Promise<LightMyRequestResponse> => {
    const options = typeof o === 'string' ? { url: o } : o;
    const res = await inject(options);
    const url = typeof options.url === 'string' ? options.url : String(options.url?.pathname ?? '/');
    checker.check({ method: options.method ?? 'GET', url, statusCode: res.statusCode, headers: res.headers, body: res.body });
    return res;
  };
  (app as unknown as { inject: typeof checked }).inject = checked;
  return app;
}

/**
 * For tests that talk to a running server over real HTTP: the checker of the document the server at `base`
 * serves, fetched once per server.
 */
const served = new Map<string, Promise<ReturnType<typeof responseChecker>>>();
export function servedChecker(base: string): Promise<ReturnType<typeof responseChecker>> {
  let checker = served.get(base);
  if (!checker) {
    checker = fetch(`${base}/openapi.json`).then(async (r) => responseChecker((await r.json()) as OpenApiDocument));
    served.set(base, checker);
  }
  return checker;
}
