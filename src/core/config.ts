/**
 * Every setting of tradeseal, read from the environment once, validated, frozen and passed down.
 *
 * Nothing else in the code base reads `process.env`. `loadConfig()` collects every bad setting and fails
 * with one message that lists each with its expected form, so an operator fixes them all in one go.
 * The settings table of docs/operations.md is generated from `SETTINGS` (`npm run docs:settings`), so it cannot drift.
 */
import fs from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parsePublicKey } from './crypto/ed25519.js';
import { TradesealError } from './errors.js';
import { packageRoot } from './package-root.js';

type Parser<T> = (raw: string) => T;

export interface Setting<T> {
  env: string;
  description: string;
  /** The expected form, shown in error messages and the README. */
  form: string;
  /** Default as written in the README; `undefined` means "unset". */
  defaultText: string;
  parse: Parser<T>;
  /** The value when the setting is unset; it may depend on other variables of the environment (e.g. XDG_CONFIG_HOME). */
  fallback: (env: Env) => T;
}

class BadSetting extends Error {}

/** FIX_DROPCOPY_LOGON_TIMEOUT_S's default. */
export const DROPCOPY_LOGON_TIMEOUT_S = 10;
/** FIX_DROPCOPY_MAX_CONNECTIONS's default. */
export const DROPCOPY_MAX_CONNECTIONS = 64;
/** FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS's default. */
export const DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS = 4;
/** FIX_DROPCOPY_RECONNECT_MAX_S's default. */
export const DROPCOPY_RECONNECT_MAX_S = 60;

const setting = <T>(env: string, form: string, defaultText: string, fallback: (env: Env) => T, parse: Parser<T>, description: string): Setting<T> => ({
  env,
  form,
  defaultText,
  fallback,
  parse,
  description,
});

const str: Parser<string> = (raw) => {
  if (raw.trim() === '') throw new BadSetting();
  return raw;
};

const int =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^\d+$/.test(raw.trim())) throw new BadSetting();
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new BadSetting();
    return n;
  };

const num =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new BadSetting();
    return n;
  };

const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new BadSetting();
};

const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw) => {
    if (!(values as string[]).includes(raw)) throw new BadSetting();
    return raw as T;
  };

const postgresUrl: Parser<string> = (raw) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadSetting();
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new BadSetting();
  return raw;
};

const engineToken: Parser<string> = (raw) => {
  if (!/^tse_[A-Za-z0-9_-]{43,}$/.test(raw)) throw new BadSetting();
  return raw;
};

const publicKey: Parser<Uint8Array> = (raw) => {
  try {
    return parsePublicKey(raw.includes('\\n') ? raw.replace(/\\n/g, '\n') : raw);
  } catch {
    throw new BadSetting();
  }
};

const secretKey: Parser<Uint8Array> = (raw) => {
  const text = raw.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : /^[A-Za-z0-9+/]{43}=?$/.test(text) ? Buffer.from(text, 'base64') : null;
  if (!bytes || bytes.length !== 32) throw new BadSetting();
  return new Uint8Array(bytes);
};

const httpUrl: Parser<string> = (raw) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BadSetting();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadSetting();
  // Stored without a trailing slash so callers append `/fred/...` paths without doubling it.
  return url.toString().replace(/\/+$/, '');
};

const mailUrl: Parser<string> = (raw) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new BadSetting();
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new BadSetting();
  return raw.trim();
};

/** An AWS KMS key: a key id (a UUID, or `mrk-` and 32 hex of a multi-Region key), `alias/NAME`, or the ARN of either. */
const awsKmsKeyId: Parser<string> = (raw) => {
  const t = raw.trim();
  const key = '(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|mrk-[0-9a-fA-F]{32})';
  const alias = 'alias/[A-Za-z0-9/_-]{1,250}';
  const arn = `arn:aws[a-z-]*:kms:[a-z0-9-]+:\\d{12}:(?:key/${key}|${alias})`;
  if (!new RegExp(`^(?:${key}|${alias}|${arn})$`).test(t)) throw new BadSetting();
  return t;
};

/** An AWS region name (`us-east-1`, `eu-central-2`, `us-gov-west-1`). */
const awsRegion: Parser<string> = (raw) => {
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(raw.trim())) throw new BadSetting();
  return raw.trim();
};

/** A profile's name, as `tradeseal config set --profile` accepts it. */
export const PROFILE_NAME = /^[a-z0-9_-]{1,40}$/;
const profileName: Parser<string> = (raw) => {
  if (!PROFILE_NAME.test(raw)) throw new BadSetting();
  return raw;
};

/** A FIX CompID (SenderCompID 49 / TargetCompID 56): printable ASCII without `=`, `|` or spaces, which would break a message or its log. */
const compId: Parser<string> = (raw) => {
  if (!/^[\x21-\x3c\x3e-\x7b\x7d\x7e]{1,64}$/.test(raw)) throw new BadSetting();
  return raw;
};

const signalsKey: Parser<string> = (raw) => {
  if (!/^rsk_[A-Za-z0-9_-]{43,}$/.test(raw.trim())) throw new BadSetting();
  return raw.trim();
};

/** Addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`), comma-separated: the proxies whose `X-Forwarded-For` is believed. */
const addressList: Parser<string[]> = (raw) => {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new BadSetting();
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) throw new BadSetting();
    if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))) throw new BadSetting();
  }
  return entries;
};

const fredKey: Parser<string> = (raw) => {
  // FRED's own rule ("a 32 character alpha-numeric lower-case string"), checked here so a typo fails at start.
  if (!/^[a-z0-9]{32}$/.test(raw.trim())) throw new BadSetting();
  return raw.trim();
};

/** An EODHD API token: its letters, digits, dots and dashes (EODHD issues hex-like tokens such as `65a8…f1.12345678`). */
const eodhdToken: Parser<string> = (raw) => {
  if (!/^[A-Za-z0-9._-]{8,128}$/.test(raw.trim())) throw new BadSetting();
  return raw.trim();
};

/** An IANA time zone this Node.js knows (`America/New_York`, `UTC`). */
const timeZone: Parser<string> = (raw) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: raw.trim() });
  } catch {
    throw new BadSetting();
  }
  return raw.trim();
};

/**
 * When a night gives up: a time of day `HH:MM` from 03:00 to 23:59 (a time every day has, whatever the clocks
 * do: a change of clocks happens before 03:00), or a while after the night starts, `90m` or `30s` (1 s to 24 h).
 */
export type DeadlineSetting = { kind: 'time'; time: string } | { kind: 'after'; ms: number };
const deadline: Parser<DeadlineSetting> = (raw) => {
  const text = raw.trim();
  if (/^(0[3-9]|1\d|2[0-3]):[0-5]\d$/.test(text)) return { kind: 'time', time: text };
  const m = /^(\d{1,5})(s|m)$/.exec(text);
  const ms = m ? Number(m[1]) * (m[2] === 's' ? 1000 : 60_000) : 0;
  if (ms < 1000 || ms > 86_400_000) throw new BadSetting();
  return { kind: 'after', ms };
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The default cost per unit of exposure change, in basis points: a conservative allowance for SPY's spread, fees and slippage at the open. */
export const SIGNAL_COST_BPS_DEFAULT = 5;

/** The table of settings. Order is the order of docs/operations.md's table. */
export const SETTINGS = {
  databaseUrl: setting<string | null>(
    'DATABASE_URL',
    'postgres://user:pass@host:port/db',
    'unset (embedded PGlite store)',
    () => null,
    postgresUrl,
    'Postgres server of both services. Unset: the embedded PGlite store under `TRADESEAL_HOME`.',
  ),
  home: setting(
    'TRADESEAL_HOME',
    'a directory path',
    '`./.tradeseal`',
    () => path.resolve('.tradeseal'),
    (raw) => path.resolve(str(raw)),
    'Directory of the embedded store and local state.',
  ),
  storeConnectTimeoutMs: setting(
    'STORE_CONNECT_TIMEOUT_MS',
    'an integer of milliseconds 100-60000',
    '`2000`',
    () => 2000,
    int(100, 60_000),
    'How long opening a connection to the Postgres server of `DATABASE_URL` may take before it fails (the server then answers 503 `service_unavailable`; a command exits 6).',
  ),
  storeStatementTimeoutMs: setting(
    'STORE_STATEMENT_TIMEOUT_MS',
    'an integer of milliseconds 100-600000',
    '`5000`',
    () => 5000,
    int(100, 600_000),
    'The longest a statement of `tradeseal serve` may run on the Postgres server (its `statement_timeout`: a longer one is cancelled and its request answered 503). Migrations and pipeline runs are exempt, and so are commands; the embedded store has none. A request not answered within this plus `STORE_CONNECT_TIMEOUT_MS` plus 1 s is answered 503 (see "Guarantees").',
  ),
  storeStartWaitS: setting(
    'STORE_START_WAIT_S',
    'an integer of seconds 0-86400',
    '`300`',
    () => 300,
    int(0, 86_400),
    'How long `tradeseal serve` waits for the Postgres server of `DATABASE_URL` when it does not answer at start: the server listens meanwhile, answers 503 `service_unavailable` with `Retry-After` (its `/readyz` too), tries again every few seconds (each try logged), and serves once the store answers; past this it exits 6. A store that refuses `DATABASE_URL` (a wrong password, no such database or role) is not waited for: exit 2. 0: no wait.',
  ),
  host: setting(
    'HOST',
    'an interface address or host name',
    '`127.0.0.1`',
    () => '127.0.0.1',
    str,
    'Address `tradeseal serve` listens on (`0.0.0.0` for every interface).',
  ),
  port: setting('PORT', 'an integer 0-65535', '`8080`', () => 8080, int(0, 65535), 'TCP port `tradeseal serve` listens on.'),
  serveWorkers: setting<number | null>(
    'SERVE_WORKERS',
    'an integer 1-256',
    'unset: with `DATABASE_URL`, one per core (`os.availableParallelism()`), or half the cores (at least 1) when the URL names this host; 1 with the embedded store',
    () => null,
    int(1, 256),
    "Server processes `tradeseal serve` runs on its one port (`--workers`), sharing nothing but the store. More than 1 needs `DATABASE_URL`: the embedded store serves one process. 1 serves in the command's own process. The default leaves half the cores to a PostgreSQL on the same host (a loopback address, a Unix socket, this host's name or one of its addresses): it spends about 0.4 ms of CPU for every 0.6 ms the server spends on an authorize.",
  ),
  httpHeadersTimeoutMs: setting(
    'HTTP_HEADERS_TIMEOUT_MS',
    'an integer of milliseconds 100-600000, at most `HTTP_REQUEST_TIMEOUT_MS`',
    '`5000`',
    () => 5000,
    int(100, 600_000),
    'How long a client may take to send a request\'s line and headers, counted from its first byte (on a new connection, from the connection; over HTTPS, the TLS handshake has the same bound before it): a request not complete by then is answered 408 `request_timeout` and its connection closed, within 0.5 s of the bound (see "Slow clients and connection floods").',
  ),
  httpRequestTimeoutMs: setting(
    'HTTP_REQUEST_TIMEOUT_MS',
    'an integer of milliseconds 100-600000',
    '`10000`',
    () => 10_000,
    int(100, 600_000),
    'How long a client may take to send a whole request, headers and body, counted as `HTTP_HEADERS_TIMEOUT_MS` is: a body that stops short of its `Content-Length` is answered 408 `request_timeout` here and its connection closed. It bounds receiving only: once the body is in, the request deadline (`STORE_CONNECT_TIMEOUT_MS` + `STORE_STATEMENT_TIMEOUT_MS` + 1 s) bounds the answer, so no request is cut by this while it is processed, and a request takes at most the sum of both.',
  ),
  httpKeepAliveTimeoutMs: setting(
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    'an integer of milliseconds 100-600000',
    '`5000`',
    () => 5000,
    int(100, 600_000),
    "How long a keep-alive connection may stay idle between requests: the server advertises it (`Keep-Alive: timeout=5`) and closes the connection 1 s after it, so that a client honouring the header never sends on a connection being closed. Behind a load balancer that keeps idle connections to the server, set it above the balancer's idle timeout (e.g. `65000` behind a 60 s one), so that the balancer, not the server, closes them.",
  ),
  httpMaxConnections: setting(
    'HTTP_MAX_CONNECTIONS',
    'an integer 1-1000000',
    '`10000`',
    () => 10_000,
    int(1, 1_000_000),
    "Connections one server process holds open at once (under `serve --workers N`, each worker); one more is closed as soon as it is accepted, before anything is read or written. Keep it below the open-file limit (`ulimit -n`), which the store's connections and the logs share.",
  ),
  httpMaxConnectionsPerAddress: setting(
    'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
    'an integer 1-1000000',
    '`256`',
    () => 256,
    int(1, 1_000_000),
    'Connections one client address holds open at once in one server process (an IPv6 client counts by its /64); one more is closed as soon as it is accepted. The addresses of `TRUST_PROXY` are exempt: they count against `HTTP_MAX_CONNECTIONS` only.',
  ),
  trustProxy: setting<string[] | null>(
    'TRUST_PROXY',
    'IP addresses and CIDR ranges, comma-separated (`10.0.0.5,10.1.0.0/16`)',
    'unset (`X-Forwarded-For` is ignored)',
    () => null,
    addressList,
    "The reverse proxies in front of the server: when a request comes from one of these, its client address (the keys' IP lock, the logs) is the nearest address of `X-Forwarded-For` that is not one of them. Their connections are exempt from `HTTP_MAX_CONNECTIONS_PER_ADDRESS`.",
  ),
  logLevel: setting<LogLevel>(
    'LOG_LEVEL',
    LOG_LEVELS.join('|'),
    '`info`',
    () => 'info',
    oneOf(...LOG_LEVELS),
    'Server log level (on stderr, in the form of `LOG_FORMAT`).',
  ),
  logFormat: setting<LogFormat | null>(
    'LOG_FORMAT',
    LOG_FORMATS.join('|'),
    'unset (`pretty` when standard error is a terminal, else `json`)',
    () => null,
    oneOf(...LOG_FORMATS),
    "The server log's form: `json`, one JSON object a line (what log collectors read), or `pretty`, one readable line each (time, level, message, then the other fields as `name=value`, without the process id and host name, and of a request its method and URL only). Both are redacted alike, and the readable form escapes control characters.",
  ),
  tlsCert: setting<string | null>(
    'TLS_CERT',
    'a path to a PEM certificate file (the leaf first, then any intermediates)',
    'unset (plain HTTP)',
    () => null,
    (raw) => path.resolve(str(raw)),
    'With `TLS_KEY`: `tradeseal serve` speaks HTTPS with this certificate. Checked at start, re-read every minute (a renewed certificate is served without a restart); its expiry is `cert_expiry_status` in health.',
  ),
  tlsKey: setting<string | null>(
    'TLS_KEY',
    'a path to an unencrypted PEM private key file',
    'unset',
    () => null,
    (raw) => path.resolve(str(raw)),
    'The private key of `TLS_CERT` (set both or neither).',
  ),
  tlsClientCa: setting<string | null>(
    'TLS_CLIENT_CA',
    'a path to a PEM file of CA certificates',
    'unset (no client certificates)',
    () => null,
    (raw) => path.resolve(str(raw)),
    'Mutual TLS (needs `TLS_CERT`): every `/engine` route but health needs a client certificate issued by one of these CAs, and authorize and bind need its common name to be the agent (`mtls_cn_mismatch`). `/v1`, health and the API document stay open.',
  ),
  tlsCnMap: setting<string | null>(
    'TLS_CN_MAP',
    'a path to a JSON file `{"common name": "agent_id" or ["agent_id", …]}`',
    'unset (a common name is the agent_id)',
    () => null,
    (raw) => path.resolve(str(raw)),
    'For client certificates that name hosts, not agents (needs `TLS_CLIENT_CA`): the agents each common name may act for; a common name not listed stands for itself.',
  ),
  policyPath: setting(
    'POLICY_PATH',
    'a path to a policy JSON file',
    '`data/policy/default.json`',
    () => path.join(packageRoot(), 'data/policy/default.json'),
    (raw) => path.resolve(str(raw)),
    "The engine's policy document, validated at start (`tradeseal engine policy check FILE`).",
  ),
  engineOwnerToken: setting<string | null>(
    'ENGINE_OWNER_TOKEN',
    '`tse_` followed by at least 43 base64url characters',
    'unset',
    () => null,
    engineToken,
    'On a start with no owner token in the store, registers this one as the first owner token (else use `tradeseal engine tokens bootstrap`).',
  ),
  layer2Enabled: setting(
    'LAYER2_ENABLED',
    'true|false',
    '`false`',
    () => false,
    bool,
    'Layer 2: authorize requires a signed heartbeat of the regime operator and rejects it (403) when any check fails.',
  ),
  regimeOperatorPubkey: setting<Uint8Array | null>(
    'REGIME_OPERATOR_PUBKEY',
    'Ed25519 public key: 64 hex chars, base64 of 32 bytes, or PEM',
    'unset',
    () => null,
    publicKey,
    "The regime operator's public key that heartbeat signatures are verified against: the signal service's, printed by `tradeseal signals heartbeat-key` (`tradeseal engine keys gen` makes a pair for another issuer).",
  ),
  regimeSigningKey: setting<Uint8Array | null>(
    'REGIME_SIGNING_KEY',
    'Ed25519 secret key (32-byte seed): 64 hex chars or base64',
    'unset (a key generated on first start and kept in the store)',
    () => null,
    secretKey,
    "The regime signal service's heartbeat signing key (`GET /v1/engine/heartbeat`, `tradeseal regime heartbeat`). Unset: one is generated on the first start and kept in the store (sealed under `KMS_PROVIDER` when one is set); `tradeseal signals heartbeat-key` prints its public key for the engine's `REGIME_OPERATOR_PUBKEY`. Keep it out of the engine's environment.",
  ),
  heartbeatSignatureScheme: setting<'ed25519' | 'ed25519-jcs'>(
    'HEARTBEAT_SIGNATURE_SCHEME',
    'ed25519|ed25519-jcs',
    '`ed25519`',
    () => 'ed25519',
    oneOf('ed25519', 'ed25519-jcs'),
    'Signature layout of the heartbeats the signal service issues: `ed25519` (binary fields) or `ed25519-jcs` (the JCS of the fields).',
  ),
  heartbeatReplayWindowMs: setting(
    'HEARTBEAT_REPLAY_WINDOW_MS',
    'an integer of milliseconds 1-3600000',
    '`30000`',
    () => 30_000,
    int(1, 3_600_000),
    "A heartbeat's `timestamp_ms` must be within this many ms of the engine clock, both directions.",
  ),
  heartbeatRequireMtaRef: setting(
    'HEARTBEAT_REQUIRE_MTA_REF',
    'true|false',
    '`false`',
    () => false,
    bool,
    "Layer 2 also requires the heartbeat's `mta_ref` (the current regime broadcast's hash).",
  ),
  traceExpiryMs: setting(
    'TRACE_EXPIRY_MS',
    'an integer of milliseconds >= 1000',
    '`86400000` (24 h)',
    () => 86_400_000,
    int(1000, Number.MAX_SAFE_INTEGER),
    'A PENDING trace older than this becomes EXPIRED (sweeper every minute in the server; `tradeseal engine sweep`).',
  ),
  bindQuantityTolerance: setting(
    'BIND_QUANTITY_TOLERANCE',
    'a number 0-1',
    '`0.0001`',
    () => 1e-4,
    num(0, 1),
    'Relative tolerance of executed against authorized quantity at bind before the trace is Divergent.',
  ),
  stateRefreshMs: setting(
    'ENGINE_STATE_REFRESH_MS',
    'an integer of milliseconds 50-1000',
    '`250`',
    () => 250,
    int(50, 1000),
    "How often each server process re-reads the shared regime broadcast, shadow mode and token revocations, and how long it keeps a key's admission: a change reaches every instance within this time. A token revocation, key rotation or revocation, or tier change is held on every worker of the server that makes it before it is answered (a worker that does not confirm is waited out for twice this time), and reaches other servers on the database by NOTIFY in milliseconds; this time is the bound when a notification is lost.",
  ),
  batchInFlight: setting(
    'ENGINE_BATCH_IN_FLIGHT',
    'an integer 1-64',
    '`1`',
    () => 1,
    int(1, 64),
    'Batched statements of each kind (authorize\'s registry lookup and its seal, which also counts the throttle; bind\'s read and its update) each engine process keeps under way at once. A request that finds one free is sent at once; requests that arrive while all are busy go together in the next (group commit), each keeping its own outcome. Fewer slots make larger batches, so fewer statements and less CPU per request: on 2 cores shared with PostgreSQL, 2 slots served no more authorizes than 1 (docs/benchmarks.md, "The engine"). More can pay where the store is far (a long round trip) and has cores to spare.',
  ),
  logSigningKey: setting<Uint8Array | null>(
    'LOG_SIGNING_KEY',
    'Ed25519 secret key (32-byte seed): 64 hex chars or base64',
    'unset (a key generated on first start and kept in the store)',
    () => null,
    secretKey,
    "The key that signs the transparency log's tree heads (`GET /engine/log/head`). Unset: one is generated on first use and kept in the store (sealed under `KMS_PROVIDER` when one is set). `tradeseal engine log key` prints its public key and `key_id`, which verifiers pass to `tradeseal engine log verify --public-key`.",
  ),
  signalLogSigningKey: setting<Uint8Array | null>(
    'SIGNAL_LOG_SIGNING_KEY',
    'Ed25519 secret key (32-byte seed): 64 hex chars or base64',
    'unset (a key generated on first use and kept in the store)',
    () => null,
    secretKey,
    "The key that signs the signal service's track log (every published day a leaf; `GET /v1/log/head`). Unset: one is generated on first use and kept in the store (sealed under `KMS_PROVIDER` when one is set). `tradeseal signals log key` prints its public key and fingerprint, which subscribers pass to `tradeseal signals verify --public-key`. Keep it: a new key starts a record its subscribers must trust anew.",
  ),
  kmsProvider: setting<'local' | 'aws' | null>(
    'KMS_PROVIDER',
    'local|aws',
    'unset (personal data, signing keys and webhook secrets in clear in the store; erasure answers 412)',
    () => null,
    oneOf('local', 'aws'),
    'The key-management provider that wraps the data keys of what the store keeps secret: the per-agent keys under which the engine encrypts personal data (an agent\'s name, a trace\'s regulatory block and its salt), so that `tradeseal engine erase` can destroy them, and the keys of every secret kept in the store (the heartbeat, transparency-log and track-log signing keys, webhook secrets, the verification-code key), each sealed with AES-256-GCM under a data key of its own. `local`: a master key file (`KMS_MASTER_KEY_FILE`); `aws`: AWS KMS (`KMS_AWS_KEY_ID`). docs/operations.md, "Secrets in the store", says what a copy of the store gives away without it.',
  ),
  kmsMasterKeyFile: setting<string | null>(
    'KMS_MASTER_KEY_FILE',
    'a path to a file holding 32 bytes as 64 hex characters or base64',
    'unset',
    () => null,
    (raw) => path.resolve(str(raw)),
    "The local provider's master key (`openssl rand -hex 32 > master.key; chmod 600 master.key`), read and checked at start. Keep it out of the store's backups: the store's data keys are wrapped under it.",
  ),
  kmsAwsKeyId: setting<string | null>(
    'KMS_AWS_KEY_ID',
    'a KMS key id, key ARN, `alias/NAME` or alias ARN',
    'unset',
    () => null,
    awsKmsKeyId,
    "The AWS KMS key (symmetric, `SYMMETRIC_DEFAULT`) that wraps data keys with `KMS_PROVIDER=aws` (`GenerateDataKey` AES_256 and `Decrypt`, each with an encryption context naming what the key is for). Credentials come from the AWS SDK's default chain: `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` and `~/.aws`, SSO, a web identity token (EKS), the ECS container or the EC2 instance role.",
  ),
  kmsAwsRegion: setting<string | null>(
    'KMS_AWS_REGION',
    'an AWS region (`eu-west-1`)',
    "unset: the region of `KMS_AWS_KEY_ID` when it is an ARN, else the AWS SDK's (`AWS_REGION`, the profile's `region`, the EC2 instance's)",
    () => null,
    awsRegion,
    'The region of AWS KMS with `KMS_PROVIDER=aws`.',
  ),
  kmsAwsEndpoint: setting<string | null>(
    'KMS_AWS_ENDPOINT',
    'an http(s) URL',
    "unset (the region's AWS KMS endpoint)",
    () => null,
    httpUrl,
    'Another AWS KMS endpoint with `KMS_PROVIDER=aws`: a VPC endpoint, or a local KMS for tests (moto).',
  ),
  fredApiKey: setting<string | null>(
    'FRED_API_KEY',
    'a FRED API key (32 lower-case letters and digits)',
    'unset (the bundled CSV files only)',
    () => null,
    fredKey,
    'Key of the FRED API, for refreshing the macro series (`pipeline/fred.ts`). Unset: the pipeline runs on the files in `PIPELINE_DATA_DIR`.',
  ),
  fredBaseUrl: setting(
    'FRED_BASE_URL',
    'an http(s) URL',
    '`https://api.stlouisfed.org`',
    () => 'https://api.stlouisfed.org',
    httpUrl,
    'Base address of the FRED API (tests point it at a local server).',
  ),
  marketDataSource: setting<'yahoo' | 'eodhd'>(
    'MARKET_DATA_SOURCE',
    'yahoo|eodhd',
    '`yahoo`',
    () => 'yahoo',
    oneOf('yahoo', 'eodhd'),
    "Where `tradeseal pipeline fetch` gets the market series (GSPC, SPY, GLD: daily bars as traded, dividends and splits): `yahoo`, Yahoo Finance's chart API (no key; unofficial, for personal use by Yahoo's terms), or `eodhd`, EODHD's end-of-day API (`EODHD_API_TOKEN`). docs/operations.md, \"Running it every day\", compares them.",
  ),
  yahooBaseUrl: setting(
    'YAHOO_BASE_URL',
    'an http(s) URL',
    '`https://query1.finance.yahoo.com`',
    () => 'https://query1.finance.yahoo.com',
    httpUrl,
    "Base address of Yahoo Finance's chart API (tests point it at a local server).",
  ),
  eodhdApiToken: setting<string | null>(
    'EODHD_API_TOKEN',
    'an EODHD API token (8-128 letters, digits, dots, dashes)',
    'unset',
    () => null,
    eodhdToken,
    'The API token of EODHD, for `MARKET_DATA_SOURCE=eodhd`. Never written to a log, an error or the data vintage.',
  ),
  eodhdBaseUrl: setting(
    'EODHD_BASE_URL',
    'an http(s) URL',
    '`https://eodhd.com`',
    () => 'https://eodhd.com',
    httpUrl,
    "Base address of EODHD's API (tests point it at a local server).",
  ),
  pipelineDataDir: setting(
    'PIPELINE_DATA_DIR',
    'a directory path',
    '`data/macro`',
    () => path.join(packageRoot(), 'data/macro'),
    (raw) => path.resolve(str(raw)),
    'Directory of the macro and market CSV files the pipeline reads (and `tradeseal pipeline fetch` rewrites). A deployment that fetches sets it to a directory of its own, seeded with a copy of `data/macro`.',
  ),
  signalCostBps: setting(
    'SIGNAL_COST_BPS',
    'a number of basis points 0-10000',
    '`5`',
    () => SIGNAL_COST_BPS_DEFAULT,
    num(0, 10_000),
    "The cost every published performance figure is net of, per unit of exposure change: an exposure that moves from 1 to 0.25 at an open pays 0.75 × this many basis points of the wealth (the regime strategy, the 200-day rule and buy-and-hold alike; taking the first position is free). Used by each pipeline run's performance report and chart data, by backtests and ranged performance figures of the signal service and the CLI, and by `tradeseal quant evaluate` (`--cost-bps` overrides it for one run). The report says which cost it used (`cost_bps`).",
  ),
  pipelineSeed: setting(
    'PIPELINE_SEED',
    'an integer 0-4294967295',
    '`7`',
    () => 7,
    int(0, 4_294_967_295),
    'Seed recorded with each pipeline run. It has no effect on the published regimes: since `tradeseal-regime-5` no starting point of the model fits is random, so the same data publish the same numbers whatever the seed. A history is extended only by runs with the seed it was made with.',
  ),
  publicBaseUrl: setting<string | null>(
    'PUBLIC_BASE_URL',
    'an http(s) URL',
    'unset (the address `tradeseal serve` listens on: `http://localhost:PORT`, `https://` with TLS, the host itself when it is not a loopback or wildcard address)',
    () => null,
    httpUrl,
    "The address customers reach the signal service at: the base of the account's `billing_portal_url` and `docs_url`, and of links in mail. Set it when clients reach the server at another address than the one it listens on (a reverse proxy, a host name).",
  ),
  smtpUrl: setting<string | null>(
    'SMTP_URL',
    'smtp://user:pass@host:port or smtps://…',
    'unset (mail goes to the local outbox)',
    () => null,
    mailUrl,
    "SMTP server for the verification codes of `POST /v1/auth/register`. Unset: mail is kept in the store's outbox (`tradeseal signals outbox`).",
  ),
  mailFrom: setting(
    'MAIL_FROM',
    'an e-mail address, optionally with a name',
    '`tradeseal <no-reply@localhost>`',
    () => 'tradeseal <no-reply@localhost>',
    str,
    "Sender of the signal service's mail.",
  ),
  outboxRetentionHours: setting(
    'OUTBOX_RETENTION_HOURS',
    'an integer 1-8760',
    '`72`',
    () => 72,
    int(1, 8760),
    "How long the local outbox (without `SMTP_URL`) keeps a mail, from when it was added, read or not: an older mail (recipient address and text) is never shown, and is deleted by the next read of the outbox and by the signal service's housekeeping (every minute, in the server that runs the background jobs). Three days lets an operator pass a mail on over a weekend.",
  ),
  registerPerClientPerHour: setting(
    'REGISTER_PER_CLIENT_PER_HOUR',
    'an integer 1-100000',
    '`10`',
    () => 10,
    int(1, 100_000),
    "Registration mails (`POST /v1/auth/register`) sent for one client address (the request's address, the forwarded client's behind a trusted proxy) in any rolling hour; another is 429 `rate_limited` with `Retry-After`. Counted in the store: one limit for all servers and workers.",
  ),
  registerTotalPerHour: setting(
    'REGISTER_TOTAL_PER_HOUR',
    'an integer 1-1000000',
    '`1000`',
    () => 1000,
    int(1, 1_000_000),
    "Registration mails sent in all, for every client address together, in any rolling hour; another is 429 `rate_limited` with `Retry-After`. Far above a launch's sign-ups, it caps what many addresses together can make the service mail.",
  ),
  webhookAllowPrivate: setting(
    'WEBHOOK_ALLOW_PRIVATE',
    'true|false',
    '`false`',
    () => false,
    bool,
    'Allow webhook URLs that point at loopback, private, link-local or metadata addresses (refused by default, also after DNS resolution).',
  ),
  signalsUrl: setting<string | null>(
    'SIGNALS_URL',
    'an http(s) URL',
    'unset (the local store)',
    () => null,
    httpUrl,
    'A regime signal service for `tradeseal signals latest|range|forecast|backtest|performance|export` to read instead of the local store (`--url`).',
  ),
  signalsKey: setting<string | null>(
    'SIGNALS_KEY',
    '`rsk_` followed by at least 43 base64url characters',
    'unset',
    () => null,
    signalsKey,
    'The API key those commands send to `SIGNALS_URL` (`--key`).',
  ),
  engineUrl: setting<string | null>(
    'ENGINE_URL',
    'an http(s) URL',
    'unset (the local store)',
    () => null,
    httpUrl,
    'A compliance engine for the `tradeseal engine …` commands that can ask one (`engine log head|verify`) to ask instead of the local store (`--url`).',
  ),
  engineToken: setting<string | null>(
    'ENGINE_TOKEN',
    '`tse_` followed by at least 43 base64url characters',
    'unset',
    () => null,
    engineToken,
    'The engine token those commands send to `ENGINE_URL` (`--token`).',
  ),
  profile: setting<string | null>(
    'TRADESEAL_PROFILE',
    'a profile name: 1-40 of a-z, 0-9, _ and -',
    'unset',
    () => null,
    profileName,
    'The profile of `TRADESEAL_PROFILES_FILE` whose remote engine and signal service the commands use when neither a flag nor `ENGINE_URL`/`SIGNALS_URL` names one (`--profile` names one for a single command).',
  ),
  profilesFile: setting(
    'TRADESEAL_PROFILES_FILE',
    'a file path',
    '`$XDG_CONFIG_HOME/tradeseal/profiles.json` (`~/.config/…` without XDG_CONFIG_HOME)',
    (env) => path.join(env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(os.homedir(), '.config'), 'tradeseal', 'profiles.json'),
    (raw) => path.resolve(str(raw)),
    'Where `tradeseal config set` keeps named profiles (remote URLs, tokens and keys), readable by its owner only.',
  ),
  pipelineCron: setting(
    'PIPELINE_CRON',
    'a cron expression (5 or 6 fields)',
    '`30 6 * * 1-5`',
    () => '30 6 * * 1-5',
    str,
    "When `tradeseal pipeline schedule` starts a night (fetch, check, run) in `PIPELINE_TIMEZONE`, unless `--cron` is given. The default is when a trading day's regime is due: 06:30 New York on the next trading day.",
  ),
  pipelineTimezone: setting(
    'PIPELINE_TIMEZONE',
    'an IANA time zone',
    '`America/New_York`',
    () => 'America/New_York',
    timeZone,
    'The time zone of `PIPELINE_CRON` and `PIPELINE_DEADLINE`.',
  ),
  pipelineDeadline: setting<DeadlineSetting>(
    'PIPELINE_DEADLINE',
    '`HH:MM` from 03:00 to 23:59, or a while after the start: `90m`, `30s` (1 s to 24 h)',
    '`09:00`',
    () => ({ kind: 'time', time: '09:00' }),
    deadline,
    "How long a night keeps trying when a series is late or a source is down: until this time of day (in `PIPELINE_TIMEZONE`; the next day's if the night started after it), or for this long after it started. Then it publishes nothing, records the late day and why (`tradeseal pipeline status`), and exits non-zero.",
  ),
  pipelineRetrySeconds: setting(
    'PIPELINE_RETRY_SECONDS',
    'an integer of seconds 1-14400',
    '`600`',
    () => 600,
    int(1, 14_400),
    'How long a night waits between two tries (fetch, check) when a series is late or a source is down.',
  ),
  dropCopyRole: setting<'initiator' | 'acceptor' | null>(
    'FIX_DROPCOPY_ROLE',
    'initiator|acceptor',
    'unset (no FIX drop-copy session)',
    () => null,
    oneOf('initiator', 'acceptor'),
    "Runs the exchange's FIX 4.4 drop copy as a live session in `tradeseal serve` (with the engine): `initiator` connects to the exchange at `FIX_DROPCOPY_HOST`:`FIX_DROPCOPY_PORT`, `acceptor` listens there for it. Needs `FIX_DROPCOPY_PORT`, `FIX_DROPCOPY_SENDER_COMP_ID` and `FIX_DROPCOPY_TARGET_COMP_ID`. One process of all the servers on the database runs the session; every fill it receives is reconciled as it arrives.",
  ),
  dropCopyHost: setting(
    'FIX_DROPCOPY_HOST',
    'an address or host name',
    '`127.0.0.1`',
    () => '127.0.0.1',
    str,
    "Initiator: the exchange's host. Acceptor: the one local address the session listens on (`0.0.0.0` for every interface).",
  ),
  dropCopyPort: setting<number | null>(
    'FIX_DROPCOPY_PORT',
    'an integer 1-65535',
    'unset',
    () => null,
    int(1, 65535),
    "Initiator: the exchange's port. Acceptor: the port the session listens on.",
  ),
  dropCopySenderCompId: setting<string | null>(
    'FIX_DROPCOPY_SENDER_COMP_ID',
    'a FIX CompID: 1-64 printable ASCII characters, no space, `=` or `|`',
    'unset',
    () => null,
    compId,
    'Our SenderCompID (49) in the drop-copy session, as agreed with the exchange.',
  ),
  dropCopyTargetCompId: setting<string | null>(
    'FIX_DROPCOPY_TARGET_COMP_ID',
    'a FIX CompID: 1-64 printable ASCII characters, no space, `=` or `|`',
    'unset',
    () => null,
    compId,
    "The exchange's SenderCompID, our TargetCompID (56), in the drop-copy session.",
  ),
  dropCopyHeartbeatS: setting(
    'FIX_DROPCOPY_HEARTBEAT_S',
    'an integer of seconds 1-300',
    '`30`',
    () => 30,
    int(1, 300),
    "The drop-copy session's HeartBtInt (108): a peer silent for longer is sent a TestRequest, and the session is dropped when that goes unanswered.",
  ),
  dropCopyReconnectS: setting(
    'FIX_DROPCOPY_RECONNECT_S',
    'an integer of seconds 1-3600',
    '`5`',
    () => 5,
    int(1, 3600),
    'Initiator: how long the session waits before connecting again after a connection fails or drops; it doubles with each attempt that fails in a row, up to `FIX_DROPCOPY_RECONNECT_MAX_S`, and each wait is drawn between half of it and all of it.',
  ),
  dropCopyReconnectMaxS: setting(
    'FIX_DROPCOPY_RECONNECT_MAX_S',
    'an integer of seconds 1-3600',
    `\`${DROPCOPY_RECONNECT_MAX_S}\``,
    () => DROPCOPY_RECONNECT_MAX_S,
    int(1, 3600),
    'Initiator: the longest wait between two connection attempts (the bound of the doubling; at least `FIX_DROPCOPY_RECONNECT_S`).',
  ),
  dropCopyLogonTimeoutS: setting(
    'FIX_DROPCOPY_LOGON_TIMEOUT_S',
    'an integer of seconds 1-300',
    `\`${DROPCOPY_LOGON_TIMEOUT_S}\``,
    () => DROPCOPY_LOGON_TIMEOUT_S,
    int(1, 300),
    'Acceptor: a connection that has not sent a valid Logon within this long is closed (and recorded among the refused messages). Initiator: a Logon the exchange has not answered within this long ends the attempt, and the session connects again.',
  ),
  dropCopyAllow: setting<string[] | null>(
    'FIX_DROPCOPY_ALLOW',
    'IP addresses and CIDR ranges, comma-separated (`203.0.113.7,198.51.100.0/24`)',
    'unset (any address)',
    () => null,
    addressList,
    'Acceptor: the only peer addresses the session takes connections from; a connection from any other is closed at once, before a byte is read, and recorded among the refused messages.',
  ),
  dropCopyMaxConnections: setting(
    'FIX_DROPCOPY_MAX_CONNECTIONS',
    'an integer 1-100000',
    `\`${DROPCOPY_MAX_CONNECTIONS}\``,
    () => DROPCOPY_MAX_CONNECTIONS,
    int(1, 100_000),
    "Acceptor: connections the listener holds open at once, those waiting at the door for their Logon and the session's own; one more is closed as soon as it is accepted (and counted among the refused connections). With `FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS` it bounds the descriptors strangers can take from the HTTP server and the store; `FIX_DROPCOPY_ALLOW` is what keeps them out.",
  ),
  dropCopyMaxConnectionsPerAddress: setting(
    'FIX_DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS',
    'an integer 1-100000',
    `\`${DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS}\``,
    () => DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS,
    int(1, 100_000),
    'Acceptor: connections one peer address (an IPv6 peer by its /64) holds open on the listener at once; one more is closed as soon as it is accepted, so strangers at one address never take the place of the exchange at another.',
  ),
  dropCopyTlsCert: setting<string | null>(
    'FIX_DROPCOPY_TLS_CERT',
    'a path to a PEM certificate file',
    'unset (plain TCP)',
    () => null,
    (raw) => path.resolve(str(raw)),
    "With `FIX_DROPCOPY_TLS_KEY`: the drop-copy session speaks TLS with this certificate (the acceptor's server certificate, or the initiator's client certificate). Read at start.",
  ),
  dropCopyTlsKey: setting<string | null>(
    'FIX_DROPCOPY_TLS_KEY',
    'a path to an unencrypted PEM private key file',
    'unset',
    () => null,
    (raw) => path.resolve(str(raw)),
    'The private key of `FIX_DROPCOPY_TLS_CERT` (set both or neither).',
  ),
  dropCopyTlsCa: setting<string | null>(
    'FIX_DROPCOPY_TLS_CA',
    'a path to a PEM file of CA certificates',
    "unset (the system's CAs)",
    () => null,
    (raw) => path.resolve(str(raw)),
    "TLS for the drop-copy session: the CAs the peer's certificate must be issued by. An initiator needs only this to speak TLS to the exchange; an acceptor with it requires a client certificate issued by one of them (and needs `FIX_DROPCOPY_TLS_CERT`).",
  ),
} satisfies Record<string, Setting<unknown>>;

/** Settings whose values are secrets: never repeated in an error message. */
const SECRET_SETTINGS = new Set([
  'DATABASE_URL',
  'ENGINE_OWNER_TOKEN',
  'ENGINE_TOKEN',
  'REGIME_SIGNING_KEY',
  'LOG_SIGNING_KEY',
  'FRED_API_KEY',
  'EODHD_API_TOKEN',
  'SMTP_URL',
  'SIGNALS_KEY',
]);

type Settings = typeof SETTINGS;

/** The FIX drop-copy session (src/engine/dropcopy/), from the FIX_DROPCOPY_* settings; null when FIX_DROPCOPY_ROLE is unset. */
export interface DropCopyConfig {
  role: 'initiator' | 'acceptor';
  host: string;
  port: number;
  senderCompId: string;
  targetCompId: string;
  heartbeatS: number;
  reconnectS: number;
  /** The bound of the initiator's backoff (default DROPCOPY_RECONNECT_MAX_S). */
  reconnectMaxS?: number;
  /** How long a Logon may take, either way (default DROPCOPY_LOGON_TIMEOUT_S). */
  logonTimeoutS?: number;
  /** Acceptor: the peer addresses and CIDR ranges taken; null or absent: any. */
  allow?: string[] | null;
  /** Acceptor: connections open on the listener at once (default DROPCOPY_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** Acceptor: connections open from one peer address at once (default DROPCOPY_MAX_CONNECTIONS_PER_ADDRESS). */
  maxConnectionsPerAddress?: number;
  /** File paths (read at the session's start); null for plain TCP. */
  tls: null | { cert: string | null; key: string | null; ca: string | null };
}

export type Config = Readonly<{ [K in keyof Settings]: ReturnType<Settings[K]['fallback']> } & { dropCopy: DropCopyConfig | null }>;

export type Env = Record<string, string | undefined>;

/** Reads every setting once. Throws one `config_invalid` error naming every bad setting and its form. */
export function loadConfig(env: Env = process.env): Config {
  const out: Record<string, unknown> = {};
  const bad: string[] = [];
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[s.env];
    if (raw === undefined || raw === '') {
      out[key] = s.fallback(env);
      continue;
    }
    try {
      out[key] = s.parse(raw);
    } catch {
      // Secrets are never echoed, not even mistyped ones: error messages end up in logs.
      bad.push(`${s.env}=${SECRET_SETTINGS.has(s.env) ? '(value hidden)' : JSON.stringify(raw)} (expected ${s.form})`);
    }
  }
  // Node refuses to start a server whose headers bound is longer than its request bound.
  if (bad.length === 0 && (out.httpHeadersTimeoutMs as number) > (out.httpRequestTimeoutMs as number)) {
    bad.push(
      `HTTP_HEADERS_TIMEOUT_MS=${JSON.stringify(String(out.httpHeadersTimeoutMs))} (expected at most HTTP_REQUEST_TIMEOUT_MS, ${String(out.httpRequestTimeoutMs)})`,
    );
  }
  if (bad.length === 0) out.dropCopy = dropCopyOf(out, env, bad);
  if (bad.length > 0) {
    throw new TradesealError('config_invalid', `invalid settings: ${bad.join('; ')}`, {
      errors: bad.map((b) => ({ field: b.slice(0, b.indexOf('=')), message: b.slice(b.indexOf('=') + 1) })),
      hint: 'fix each setting listed; docs/operations.md (Settings) has the table of settings',
    });
  }
  return Object.freeze(out) as Config;
}

/**
 * The drop-copy session's settings as one value, or null. All or nothing: a role without its port and CompIDs,
 * or any other FIX_DROPCOPY_* setting without a role, is refused naming the settings missing, so a half-configured
 * session never starts silently (nor is silently not started). TLS files must be readable now, not at first connect.
 */
function dropCopyOf(out: Record<string, unknown>, env: Env, bad: string[]): DropCopyConfig | null {
  const role = out.dropCopyRole as DropCopyConfig['role'] | null;
  const given = Object.values(SETTINGS)
    .filter((s: Setting<unknown>) => s.env.startsWith('FIX_DROPCOPY_') && env[s.env] !== undefined && env[s.env] !== '')
    .map((s) => s.env);
  if (role === null) {
    if (given.length > 0)
      bad.push(
        `FIX_DROPCOPY_ROLE=(unset) (expected initiator|acceptor: ${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} set, and a drop-copy session needs FIX_DROPCOPY_ROLE, FIX_DROPCOPY_PORT, FIX_DROPCOPY_SENDER_COMP_ID and FIX_DROPCOPY_TARGET_COMP_ID)`,
      );
    return null;
  }
  const missing = (['FIX_DROPCOPY_PORT', 'FIX_DROPCOPY_SENDER_COMP_ID', 'FIX_DROPCOPY_TARGET_COMP_ID'] as const).filter(
    (name) => env[name] === undefined || env[name] === '',
  );
  for (const name of missing)
    bad.push(
      `${name}=(unset) (expected it with FIX_DROPCOPY_ROLE=${role}: a drop-copy session needs FIX_DROPCOPY_PORT, FIX_DROPCOPY_SENDER_COMP_ID and FIX_DROPCOPY_TARGET_COMP_ID)`,
    );
  const cert = out.dropCopyTlsCert as string | null;
  const key = out.dropCopyTlsKey as string | null;
  const ca = out.dropCopyTlsCa as string | null;
  if ((cert === null) !== (key === null))
    bad.push(
      `${cert === null ? 'FIX_DROPCOPY_TLS_CERT' : 'FIX_DROPCOPY_TLS_KEY'}=(unset) (expected with ${cert === null ? 'FIX_DROPCOPY_TLS_KEY' : 'FIX_DROPCOPY_TLS_CERT'}: set both or neither)`,
    );
  if (role === 'acceptor' && ca !== null && cert === null)
    bad.push('FIX_DROPCOPY_TLS_CERT=(unset) (expected with FIX_DROPCOPY_TLS_CA for an acceptor: a TLS listener needs its own certificate and key)');
  for (const [name, file] of [
    ['FIX_DROPCOPY_TLS_CERT', cert],
    ['FIX_DROPCOPY_TLS_KEY', key],
    ['FIX_DROPCOPY_TLS_CA', ca],
  ] as const) {
    if (file === null) continue;
    try {
      if (!fs.statSync(file).isFile()) throw new Error('not a file');
      fs.accessSync(file, fs.constants.R_OK);
    } catch {
      bad.push(`${name}=${JSON.stringify(file)} (expected a readable PEM file: it is missing, not a file, or not readable by this user)`);
    }
  }
  if (bad.length > 0) return null;
  return {
    role,
    host: out.dropCopyHost as string,
    port: out.dropCopyPort as number,
    senderCompId: out.dropCopySenderCompId as string,
    targetCompId: out.dropCopyTargetCompId as string,
    heartbeatS: out.dropCopyHeartbeatS as number,
    reconnectS: out.dropCopyReconnectS as number,
    reconnectMaxS: Math.max(out.dropCopyReconnectMaxS as number, out.dropCopyReconnectS as number),
    logonTimeoutS: out.dropCopyLogonTimeoutS as number,
    allow: out.dropCopyAllow as string[] | null,
    maxConnections: out.dropCopyMaxConnections as number,
    maxConnectionsPerAddress: out.dropCopyMaxConnectionsPerAddress as number,
    tls: cert === null && ca === null ? null : { cert, key, ca },
  };
}

/** A config for tests and tools: defaults, overridden. */
export function configWith(overrides: Partial<Config> = {}, env: Env = {}): Config {
  return Object.freeze({ ...loadConfig(env), ...overrides });
}

/** The table of settings in docs/operations.md, generated from `SETTINGS`. */
export function settingsTable(): string {
  const rows = Object.values(SETTINGS).map((s: Setting<unknown>) => `| \`${s.env}\` | ${s.defaultText} | ${s.form.replace(/\|/g, '\\|')} | ${s.description} |`);
  return ['| Setting | Default | Form | What it does |', '|---|---|---|---|', ...rows].join('\n');
}

export const parsers = {
  str,
  int,
  num,
  bool,
  oneOf,
  postgresUrl,
  httpUrl,
  mailUrl,
  fredKey,
  eodhdToken,
  deadline,
  timeZone,
  engineToken,
  signalsKey,
  publicKey,
  secretKey,
  profileName,
  addressList,
  awsKmsKeyId,
  awsRegion,
};
