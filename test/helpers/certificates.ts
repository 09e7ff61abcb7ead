/**
 * Real X.509 certificates made at test time with the openssl command line: a CA (`openssl req -x509`) that
 * issues server and client certificates (`openssl ca`, which also takes validity dates in the past, for
 * expired certificates). P-256 keys, so a whole PKI takes a fraction of a second.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface IssuedCertificate {
  certPath: string;
  keyPath: string;
  cert: Buffer;
  key: Buffer;
}

export interface Validity {
  /** Valid from now for this many days. */
  days?: number;
  /** Or explicit dates, `YYYYMMDDHHMMSSZ` (both in the past for an expired certificate). */
  start?: string;
  end?: string;
}

export interface TestCa {
  name: string;
  certPath: string;
  cert: Buffer;
  /** A server certificate for 127.0.0.1 and localhost. */
  server(file: string, validity?: Validity): IssuedCertificate;
  /** A client certificate whose subject is `CN=<commonName>`. */
  client(file: string, commonName: string, validity?: Validity): IssuedCertificate;
}

const OPENSSL = fs.existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : 'openssl';

const openssl = (cwd: string, args: string[]): void => {
  execFileSync(OPENSSL, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
};

const CA_CONFIG = `[ ca ]
default_ca = issuer
[ issuer ]
database = index.txt
new_certs_dir = issued
serial = serial
default_md = sha256
policy = any
unique_subject = no
[ any ]
commonName = supplied
[ server ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
[ client ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
`;

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** A CA in its own directory under `dir`. */
export function makeCa(dir: string, name: string): TestCa {
  const home = path.join(dir, name.replace(/[^A-Za-z0-9_-]/g, '_'));
  fs.mkdirSync(path.join(home, 'issued'), { recursive: true });
  fs.writeFileSync(path.join(home, 'ca.cnf'), CA_CONFIG);
  fs.writeFileSync(path.join(home, 'index.txt'), '');
  fs.writeFileSync(path.join(home, 'serial'), '1000\n');
  openssl(home, [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-subj',
    `/CN=${name}`,
    '-days',
    '3650',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);

  const issue = (file: string, subject: string, extensions: 'server' | 'client', validity: Validity = {}): IssuedCertificate => {
    const keyPath = path.join(dir, `${file}.key`);
    const certPath = path.join(dir, `${file}.pem`);
    const csr = path.join(home, `${file}.csr`);
    openssl(home, ['req', '-new', ...EC_KEY, '-keyout', keyPath, '-out', csr, '-subj', subject]);
    const dates = validity.start && validity.end ? ['-startdate', validity.start, '-enddate', validity.end] : ['-days', String(validity.days ?? 365)];
    openssl(home, [
      'ca',
      '-config',
      'ca.cnf',
      '-batch',
      '-notext',
      '-cert',
      'ca.pem',
      '-keyfile',
      'ca.key',
      '-in',
      csr,
      '-out',
      certPath,
      '-extensions',
      extensions,
      ...dates,
    ]);
    return { certPath, keyPath, cert: fs.readFileSync(certPath), key: fs.readFileSync(keyPath) };
  };

  const certPath = path.join(home, 'ca.pem');
  return {
    name,
    certPath,
    cert: fs.readFileSync(certPath),
    server: (file, validity) => issue(file, '/CN=localhost', 'server', validity),
    client: (file, commonName, validity) => issue(file, `/CN=${commonName}`, 'client', validity),
  };
}
