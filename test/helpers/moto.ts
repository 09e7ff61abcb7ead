/**
 * AWS KMS on this machine, for the tests of `KMS_PROVIDER=aws`: `moto_server` (python moto, `pip install
 * 'moto[server]'`; .ci/run installs it when it is missing) started by the test file that asks, on a free
 * loopback port, with one symmetric key (and an alias of it) made in it, and stopped after the file.
 *
 * Nothing is skipped: on a machine without `moto_server` the file's tests fail with an error naming it.
 *
 * moto accepts any credentials; the provider finds them as in production, through the AWS SDK's default chain,
 * so `useMotoCredentials` puts test ones in the environment for the file (and takes them out after it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CreateAliasCommand, CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './dropcopy-server.js';

export const MOTO_REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'moto-test', secretAccessKey: 'moto-test' };

export interface MotoKms {
  endpoint: string;
  /** The ARN of a key made for this file. */
  keyArn: string;
  /** `alias/…` of that key. */
  alias: string;
  /** Makes another key, for tests of a key that is not the store's. */
  newKey(): Promise<string>;
  /** The settings of `KMS_PROVIDER=aws` on this KMS, with `keyId` (the alias by default). */
  settings(keyId?: string): { kmsProvider: 'aws'; kmsAwsKeyId: string; kmsAwsEndpoint: string; kmsAwsRegion: string };
  /** The same as CLI environment variables (with the test credentials). */
  env(keyId?: string): Record<string, string>;
  stop(): Promise<void>;
}

/** Starts `command` (moto_server by default; a test names a missing one) and makes a key in it. */
export async function startMotoKms(command = 'moto_server'): Promise<MotoKms> {
  const port = await freePort();
  const child = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `${command} is not installed (not on PATH): the KMS_PROVIDER=aws tests run AWS KMS locally with it; install it with \`pip install 'moto[server]'\` (.ci/run does)`
            : `${command} could not be started: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it answered: ${output}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([failed, ready(endpoint)]);
  } catch (error) {
    await stop(child);
    throw error;
  }
  const client = new KMSClient({ region: MOTO_REGION, endpoint, credentials: CREDENTIALS });
  const newKey = async (): Promise<string> => (await client.send(new CreateKeyCommand({ Description: 'tradeseal test' }))).KeyMetadata!.Arn!;
  const keyArn = await newKey();
  const alias = `alias/tradeseal-test-${port}`;
  await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: keyArn }));
  client.destroy();
  const settings = (keyId = alias) => ({ kmsProvider: 'aws' as const, kmsAwsKeyId: keyId, kmsAwsEndpoint: endpoint, kmsAwsRegion: MOTO_REGION });
  return {
    endpoint,
    keyArn,
    alias,
    newKey,
    settings,
    env: (keyId = alias) => ({ KMS_PROVIDER: 'aws', KMS_AWS_KEY_ID: keyId, KMS_AWS_ENDPOINT: endpoint, KMS_AWS_REGION: MOTO_REGION, ...credentialEnv }),
    stop: () => stop(child),
  };
}

/** Until moto answers HTTP, for at most 30 s (its first start imports a lot of Python). */
async function ready(endpoint: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`moto_server did not answer on ${endpoint} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** The SDK chain's first link: credentials (and no EC2 metadata lookups) from the environment. */
const credentialEnv = {
  AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  AWS_EC2_METADATA_DISABLED: 'true',
};

/** A moto KMS for the test file, with the test credentials in `process.env` while its tests run. */
export function motoForFile(): () => MotoKms {
  let moto: MotoKms | null = null;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    for (const [name, value] of Object.entries(credentialEnv)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    moto = await startMotoKms();
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return () => {
    if (!moto) throw new Error('moto_server is not running: motoForFile() starts it before the tests');
    return moto;
  };
}
