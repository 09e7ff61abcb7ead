/**
 * The QuickFIX/C++ exchange peer (./exchange.cpp) as a child process a test drives: it writes the peer's
 * settings file (role, port, CompIDs, a file store in the test's directory so a restarted peer resumes its
 * sequence numbers and can resend), sends commands on stdin and waits for the event lines the peer prints.
 * The binary is the one the test setup built (`exchangePeerBinary()`, ./binary.ts) or, in a benchmark, the one
 * ./build.ts returns. What the peer sent, and when, is read back from its QuickFIX message log (`sent()`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface ExchangePeerOptions {
  /** The built peer (./binary.ts in a test, ./build.ts elsewhere). */
  binary: string;
  /** The exchange's role: `initiator` connects to `host`:`port`, `acceptor` listens on `port`. */
  role: 'initiator' | 'acceptor';
  port: number;
  host?: string;
  /** The exchange's CompID (the engine's TargetCompID) and the engine's (its SenderCompID). */
  senderCompId: string;
  targetCompId: string;
  /** The peer's settings and file store: the same directory for a restart that resumes. */
  dir: string;
  heartbeatS?: number;
  reconnectS?: number;
  /**
   * TLS (QuickFIX's SSL sockets): the exchange's certificate and key (as acceptor its server certificate, as
   * initiator its client certificate), the CAs it trusts, and whether it requires the other end's certificate.
   */
  tls?: { cert: string; key: string; ca: string; verifyPeer: boolean };
}

export interface ExchangePeer {
  /** Every line the peer printed, stdout and stderr, in order. */
  readonly lines: string[];
  readonly exited: Promise<number | string>;
  command(line: string): void;
  /** The first line from index `since` on that matches; waits for it until `timeoutMs`. */
  waitFor(pattern: RegExp, options?: { since?: number; timeoutMs?: number }): Promise<RegExpMatchArray>;
  /**
   * Every message the exchange sent, from its QuickFIX message log (`FileLogPath`), in the order sent: what a
   * benchmark measures delays from. Resends (PossDupFlag 43=Y) are included, flagged.
   */
  sent(): SentMessage[];
  /** Sends a fill (a `fill` command) and resolves with the MsgSeqNum it went out with. */
  fill(execId: string, account: string, overrides?: Record<number, string | number>): Promise<number>;
  /** `quit`: the peer logs out and exits. */
  stop(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
}

/** One message the exchange sent, as its message log recorded it. */
export interface SentMessage {
  /**
   * When QuickFIX handed it to the socket (ms since the epoch, fractional): the log's own stamp of the line, in
   * nanoseconds, taken after the message's SendingTime, its serialization and its store write, just before the
   * write to the socket (a send waits there only while the socket's buffer is full).
   */
  at: number;
  /** SendingTime (52), ms since the epoch: stamped when QuickFIX filled the header, before the above. */
  sendingTime: number;
  seq: number;
  msgType: string;
  /** ExecID (17), or null. */
  execId: string | null;
  /** PossDupFlag 43=Y: a resend. */
  possDup: boolean;
}

/** A UTC timestamp as QuickFIX writes it (YYYYMMDD-HH:MM:SS[.fraction]) in ms since the epoch, fraction kept. */
export function utcTimestampMs(text: string): number {
  const t = /^(\d{4})(\d{2})(\d{2})-(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (!t) throw new Error(`not a FIX UTC timestamp: ${text}`);
  const [, y, mo, d, h, mi, sec, frac] = t;
  return Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) + Number(`0.${frac ?? '0'}`) * 1000;
}

/**
 * The messages sent by `senderCompId` in the QuickFIX message logs under `dir` (the peer's directory): each line is
 * `STAMP : MESSAGE`, incoming and outgoing messages alike; the outgoing ones are those whose SenderCompID is ours.
 */
export function readSentMessages(dir: string, senderCompId: string): SentMessage[] {
  const logDir = path.join(dir, 'log');
  if (!existsSync(logDir)) return [];
  const out: SentMessage[] = [];
  for (const file of readdirSync(logDir).filter((f) => f.endsWith('.messages.current.log'))) {
    for (const line of readFileSync(path.join(logDir, file), 'latin1').split('\n')) {
      const sep = line.indexOf(' : ');
      if (sep < 0) continue;
      const fields = new Map<string, string>();
      for (const f of line.slice(sep + 3).split('\x01')) {
        const eq = f.indexOf('=');
        if (eq > 0 && !fields.has(f.slice(0, eq))) fields.set(f.slice(0, eq), f.slice(eq + 1));
      }
      if (fields.get('49') !== senderCompId) continue;
      const sendingTime = fields.get('52');
      out.push({
        at: utcTimestampMs(line.slice(0, sep)),
        sendingTime: sendingTime === undefined ? Number.NaN : utcTimestampMs(sendingTime),
        seq: Number(fields.get('34')),
        msgType: fields.get('35') ?? '',
        execId: fields.get('17') ?? null,
        possDup: fields.get('43') === 'Y',
      });
    }
  }
  return out;
}

export function peerSettings(o: ExchangePeerOptions): string {
  const common = [
    '[DEFAULT]',
    `ConnectionType=${o.role}`,
    `FileStorePath=${path.join(o.dir, 'store')}`,
    `FileLogPath=${path.join(o.dir, 'log')}`,
    'StartTime=00:00:00',
    'EndTime=00:00:00',
    `HeartBtInt=${o.heartbeatS ?? 30}`,
    `ReconnectInterval=${o.reconnectS ?? 1}`,
    // Restarts resume: sequence numbers and sent messages are kept, and resent when asked.
    'ResetOnLogon=N',
    'ResetOnLogout=N',
    'ResetOnDisconnect=N',
    'PersistMessages=Y',
    'UseDataDictionary=N',
    '',
    '[SESSION]',
    'BeginString=FIX.4.4',
    `SenderCompID=${o.senderCompId}`,
    `TargetCompID=${o.targetCompId}`,
  ];
  const socket = o.role === 'initiator' ? [`SocketConnectHost=${o.host ?? '127.0.0.1'}`, `SocketConnectPort=${o.port}`] : [`SocketAcceptPort=${o.port}`];
  const tls = o.tls
    ? [
        'SSL=Y',
        o.role === 'acceptor' ? `ServerCertificateFile=${o.tls.cert}` : `ClientCertificateFile=${o.tls.cert}`,
        o.role === 'acceptor' ? `ServerCertificateKeyFile=${o.tls.key}` : `ClientCertificateKeyFile=${o.tls.key}`,
        `CertificationAuthoritiesFile=${o.tls.ca}`,
        `CertificateVerifyLevel=${o.tls.verifyPeer ? 1 : 0}`,
      ]
    : [];
  // In [DEFAULT]: exchange.cpp reads SSL there, and QuickFIX's SSL sockets make one TLS context from it.
  return [...common.slice(0, 1), ...tls, ...common.slice(1), ...socket, ''].join('\n');
}

export async function startExchangePeer(options: ExchangePeerOptions): Promise<ExchangePeer> {
  mkdirSync(options.dir, { recursive: true });
  const configFile = path.join(options.dir, 'exchange.cfg');
  writeFileSync(configFile, peerSettings(options));
  const child: ChildProcess = spawn(options.binary, [configFile], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let ended = false;
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      for (const l of listeners) l();
      resolve(signal ?? code ?? -1);
    }),
  );
  const killNow = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killNow);
  void exited.then(() => process.removeListener('exit', killNow));
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      for (const l of listeners) l();
    });
  }

  const waitFor: ExchangePeer['waitFor'] = (pattern, { since = 0, timeoutMs = 20_000 } = {}) =>
    new Promise((resolve, reject) => {
      let scanned = since;
      const check = (): void => {
        for (; scanned < lines.length; scanned++) {
          const m = lines[scanned]!.match(pattern);
          if (m) return done(() => resolve(m));
        }
        if (ended)
          done(() => reject(new Error(`the exchange peer exited before printing ${pattern}:\n${lines.slice(-40).join('\n')}${eventLog(options.dir)}`)));
      };
      const timer = setTimeout(
        () =>
          done(() =>
            reject(new Error(`the exchange peer printed no ${pattern} within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}${eventLog(options.dir)}`)),
          ),
        timeoutMs,
      );
      const done = (f: () => void): void => {
        clearTimeout(timer);
        listeners.delete(check);
        f();
      };
      listeners.add(check);
      check();
    });

  const command = (line: string): void => {
    child.stdin!.write(`${line}\n`);
  };
  const peer: ExchangePeer = {
    lines,
    exited,
    command,
    waitFor,
    sent: () => readSentMessages(options.dir, options.senderCompId),
    async fill(execId, account, overrides = {}) {
      const since = lines.length;
      const fields = Object.entries(overrides).map(([t, v]) => `${t}=${v}`);
      command(['fill', execId, account, ...fields].join(' '));
      const m = await waitFor(new RegExp(`^(?:sent (\\d+) ${escape(execId)}|error .*)$`), { since });
      if (!m[1]) throw new Error(`the exchange peer did not send ${execId}: ${m[0]}`);
      return Number(m[1]);
    },
    async stop() {
      if (!ended) command('quit');
      const timer = setTimeout(killNow, 10_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (!ended) killNow();
      await exited;
    },
  };
  await waitFor(/^ready$/);
  return peer;
}

/** The end of QuickFIX's session event log (why it refused a logon, dropped a connection ...), for a failure. */
function eventLog(dir: string): string {
  const logDir = path.join(dir, 'log');
  if (!existsSync(logDir)) return '';
  const file = readdirSync(logDir).find((f) => /^FIX\.4\.4-.*\.event\.current\.log$/.test(f));
  if (!file) return '';
  return `\nQuickFIX's event log (${file}), last lines:\n${readFileSync(path.join(logDir, file), 'utf8').trimEnd().split('\n').slice(-15).join('\n')}`;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
