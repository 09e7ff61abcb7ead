/**
 * The readable form of the server log (src/http/log-pretty.ts): one line of time, level, message and fields per
 * JSON line, an error's stack below it, and the choice of form: JSON unless the log goes to a terminal or
 * LOG_FORMAT=pretty, and JSON whenever LOG_FORMAT=json.
 */
import { describe, expect, it } from 'vitest';
import { logDestination, prettyLogLine } from '../../src/http/log-pretty.js';

const TIME = Date.UTC(2026, 11, 7, 14, 5, 9, 42);

/** A stream that keeps what is written, a terminal or not. */
function sink(isTTY: boolean): NodeJS.WritableStream & { text: string } {
  const out = {
    isTTY,
    text: '',
    write(chunk: string): boolean {
      out.text += chunk;
      return true;
    },
  };
  return out as unknown as NodeJS.WritableStream & { text: string };
}

describe('prettyLogLine', () => {
  it('shows time, level and message, then the request and the other fields; not the pid or host name', () => {
    const line = JSON.stringify({
      level: 30,
      time: TIME,
      pid: 4242,
      hostname: 'box',
      reqId: 'req-1',
      req: { method: 'GET', url: '/v1/account', host: 'localhost:9123' },
      msg: 'incoming request',
    });
    expect(prettyLogLine(line)).toBe('2026-12-07T14:05:09.042Z INFO  incoming request GET /v1/account reqId=req-1');
  });

  it('shows a response status, quotes a field with spaces, and names each level', () => {
    const line = JSON.stringify({ level: 40, time: TIME, msg: 'request completed', res: { statusCode: 503 }, responseTime: 1.5, note: 'two words' });
    expect(prettyLogLine(line)).toBe('2026-12-07T14:05:09.042Z WARN  request completed status=503 responseTime=1.5 note="two words"');
    expect(prettyLogLine(JSON.stringify({ level: 50, time: TIME, msg: 'x' }))).toContain(' ERROR x');
  });

  it("puts an error's stack, indented, below its line", () => {
    const line = JSON.stringify({
      level: 50,
      time: TIME,
      msg: 'sweep failed',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (a.ts:1:1)' },
    });
    expect(prettyLogLine(line)).toBe('2026-12-07T14:05:09.042Z ERROR sweep failed\n    Error: boom\n        at f (a.ts:1:1)');
  });

  it('escapes control characters a request may have put into a message or a field: no terminal escape, no forged line', () => {
    const line = JSON.stringify({ level: 40, time: 0, msg: 'bad \u001b[31mred\nINFO forged', id: 'a\u0007b', req: { method: 'GET', url: '/x\r\ny' } });
    const shown = prettyLogLine(line);
    expect(shown).toBe('1970-01-01T00:00:00.000Z WARN  bad \\u001b[31mred\\nINFO forged GET /x\\u000d\\ny id=a\\u0007b');
    expect(shown).not.toMatch(/[\u0000-\u001f]/);
  });

  it('returns a line that is not a JSON object as it is', () => {
    expect(prettyLogLine('not json')).toBe('not json');
    expect(prettyLogLine('[1,2]')).toBe('[1,2]');
  });
});

describe('logDestination', () => {
  const record = `${JSON.stringify({ level: 30, time: TIME, msg: 'hello' })}\n`;

  it('writes JSON lines to what is not a terminal, readable lines to a terminal', () => {
    const file = sink(false);
    logDestination(null, file).write(record);
    expect(file.text).toBe(record);
    const terminal = sink(true);
    logDestination(null, terminal).write(record);
    expect(terminal.text).toBe('2026-12-07T14:05:09.042Z INFO  hello\n');
  });

  it('follows LOG_FORMAT whatever the stream, and joins a line written in parts', () => {
    const terminal = sink(true);
    logDestination('json', terminal).write(record);
    expect(terminal.text).toBe(record);
    const file = sink(false);
    const pretty = logDestination('pretty', file);
    pretty.write(record.slice(0, 10));
    expect(file.text).toBe('');
    pretty.write(record.slice(10));
    expect(file.text).toBe('2026-12-07T14:05:09.042Z INFO  hello\n');
  });
});
