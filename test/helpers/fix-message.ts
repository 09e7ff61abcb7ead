/**
 * FIX tag=value messages for tests, framed as the FIX standard frames them: BodyLength (9) counts the bytes
 * after its own field up to the CheckSum field, CheckSum (10) is the byte sum modulo 256 in three digits, both
 * over SOH-delimited bytes. Checked against the logon example of the FIX protocol's Wikipedia page in
 * test/engine/reconcile/fix-log.test.ts.
 */
const SOH = '\x01';

/** The message of `body` (fields after 8 and 9, before 10), delimited by `delimiter` (SOH by default). */
export function fixMessage(body: ReadonlyArray<readonly [number, string | number]>, delimiter = SOH, beginString = 'FIX.4.4'): string {
  const payload = body.map(([t, v]) => `${t}=${v}${SOH}`).join('');
  const head = `8=${beginString}${SOH}9=${Buffer.byteLength(payload, 'latin1')}${SOH}`;
  let sum = 0;
  for (const b of Buffer.from(head + payload, 'latin1')) sum += b;
  return `${head}${payload}10=${String(sum % 256).padStart(3, '0')}${SOH}`.split(SOH).join(delimiter);
}

/** A fill as an exchange's drop copy reports it: an ExecutionReport (35=8) with ExecType F. */
export function fillReport(
  f: {
    seq: number;
    execId: string;
    account: string;
    symbol?: string;
    side?: string;
    qty?: number;
    px?: number;
    time?: string;
    clOrdId?: string;
    possDup?: boolean;
  },
  delimiter?: string,
): string {
  return fixMessage(
    [
      [35, '8'],
      [49, 'XNAS'],
      [56, 'DESK'],
      [34, f.seq],
      ...(f.possDup ? [[43, 'Y'] as const] : []),
      [52, '20260203-10:05:00.000'],
      [37, `O-${f.execId}`],
      ...(f.clOrdId ? [[11, f.clOrdId] as const] : []),
      [17, f.execId],
      [150, 'F'],
      [39, '2'],
      [1, f.account],
      [55, f.symbol ?? 'AAPL'],
      [54, f.side ?? '1'],
      [38, f.qty ?? 100],
      [32, f.qty ?? 100],
      [31, f.px ?? 190.25],
      [15, 'USD'],
      [14, f.qty ?? 100],
      [151, 0],
      [6, f.px ?? 190.25],
      [60, f.time ?? '20260203-10:04:59.412'],
    ],
    delimiter,
  );
}
