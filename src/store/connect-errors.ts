/**
 * Why a connection to the PostgreSQL server of `DATABASE_URL` failed, said as an operator's next step.
 *
 * The server refusing the connection for what the URL says (a database that does not exist, a role that does
 * not exist, a wrong password, no pg_hba.conf entry) is a setting to correct, not an outage to wait out:
 * `config_invalid` naming DATABASE_URL (exit 2), never `internal`. A server that is not there (nothing
 * listens on the port, a host name that does not resolve) may come back: `service_unavailable` (exit 6), as
 * `faults.ts` classes it for the HTTP services too, with a hint naming the host and port.
 * The URL's password is never repeated. SQLSTATE codes: PostgreSQL documentation, Appendix A (class 28
 * invalid_authorization_specification, 28P01 invalid_password, 3D000 invalid_catalog_name).
 */
import { TradesealError } from '../core/errors.js';

interface Target {
  host: string;
  port: string;
  user: string;
  database: string;
}

/** The parts of the URL an operator needs to act on, without the password. */
export function targetOf(databaseUrl: string): Target {
  try {
    const url = new URL(databaseUrl);
    const user = decodeURIComponent(url.username) || 'the default user';
    return {
      host: url.hostname || 'localhost',
      port: url.port || '5432',
      user,
      database: decodeURIComponent(url.pathname.replace(/^\//, '')) || user,
    };
  } catch {
    return { host: 'the host', port: 'the port', user: 'the user', database: 'the database' };
  }
}

const codeOf = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The error, or the first of its causes, that carries a connection failure's code. */
function connectionFailure(err: unknown): { code: string; message: string } | null {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = codeOf(e);
    if (code && (/^28/.test(code) || code === '3D000' || code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'))
      return { code, message: (e as Error).message };
  }
  return null;
}

const setting = (message: string, hint: string): TradesealError =>
  new TradesealError('config_invalid', `DATABASE_URL: ${message}`, { errors: [{ field: 'DATABASE_URL', message }], hint });

/** The mistake `err` says about `databaseUrl`, or null when it is not a connection refused for a reason of the URL. */
export function storeConnectionError(err: unknown, databaseUrl: string): TradesealError | null {
  const failure = connectionFailure(err);
  if (!failure) return null;
  const t = targetOf(databaseUrl);
  const server = `the PostgreSQL server at ${t.host}:${t.port}`;
  switch (failure.code) {
    case '3D000':
      return setting(
        `database "${t.database}" does not exist on ${server}`,
        `create it (createdb -h ${t.host} -p ${t.port} -U ${t.user} ${t.database}), or correct the database name in DATABASE_URL`,
      );
    case '28P01':
      return setting(`${server} refused the password of user "${t.user}"`, 'correct the password in DATABASE_URL (percent-encode @, :, / and % in it)');
    case 'ECONNREFUSED':
      return new TradesealError('service_unavailable', `nothing accepts connections at ${t.host}:${t.port} (ECONNREFUSED)`, {
        hint: 'start PostgreSQL there, or correct the host and port in DATABASE_URL (unset it to use the embedded store under TRADESEAL_HOME)',
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new TradesealError('service_unavailable', `the host "${t.host}" of DATABASE_URL cannot be resolved (${failure.code})`, {
        hint: "correct the host in DATABASE_URL, or check this machine's DNS",
      });
    default:
      // Class 28: the role does not exist, or pg_hba.conf has no entry for this host, user and database.
      return setting(
        `${server} refused user "${t.user}": ${failure.message}`,
        /role .* does not exist/.test(failure.message)
          ? `create the role (createuser -h ${t.host} -p ${t.port} ${t.user}), or correct the user in DATABASE_URL`
          : "allow this host, user and database in the server's pg_hba.conf, or correct the user in DATABASE_URL",
      );
  }
}
