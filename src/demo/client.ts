/** The demo's HTTP client of the two services it started: JSON in and out, the status kept with the answer. */

export interface Answer {
  status: number;
  body: Record<string, any>;
}

export type Call = (method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

export function client(baseUrl: string): Call {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, any>) };
  };
}

/** The answer's body when its status is `want`; otherwise an error naming the request and what came back. */
export function expectStatus(answer: Answer, want: number, what: string): Record<string, any> {
  if (answer.status !== want) throw new Error(`${what}: expected ${want}, got ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}
