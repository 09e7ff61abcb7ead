/**
 * The demo's exchange: the counterparty of the demo engine's FIX drop-copy session. It connects to the engine's
 * acceptor, logs on as a FIX 4.4 session (jspurefix's session layer, the same library the engine runs, with
 * sequence numbers reset at logon: the demo keeps no exchange-side state), streams the ExecutionReports it is
 * given (35=8, ExecType F: fills), logs out once the engine has answered a TestRequest sent after the last fill
 * (every fill before it was read), and closes. What the engine does with the fills (an ORPHAN trace for an
 * execution nobody authorized) is the engine's business: the demo reads it from the engine afterwards.
 */
import net from 'node:net';
import type { IJsFixConfig, ISessionDescription, JsFixLoggerFactory, MsgTransport, MsgView } from 'jspurefix';
import { loadFix } from '../engine/dropcopy/load.js';
import type { DropCopyExecution } from '../engine/reconcile/schema.js';

export interface DemoExchangeOptions {
  host: string;
  port: number;
  /** The exchange's CompID: the engine's FIX_DROPCOPY_TARGET_COMP_ID. */
  senderCompId: string;
  /** The engine's CompID: its FIX_DROPCOPY_SENDER_COMP_ID. */
  targetCompId: string;
  /** How long the whole exchange may take before it gives up. */
  timeoutMs?: number;
}

const SIDE_CODES: Readonly<Record<DropCopyExecution['side'], string>> = { Long: '1', Short: '2' };

/** The ExecutionReport of a fill, by the field names of FIX 4.4's dictionary. */
export function executionReport(e: DropCopyExecution, orderId: string): Record<string, unknown> {
  return {
    OrderID: orderId,
    ExecID: e.exchange_tx_id,
    ExecType: 'F',
    OrdStatus: '2',
    Account: e.agent_id,
    ...(e.client_order_id ? { ClOrdID: e.client_order_id } : {}),
    Instrument: { Symbol: e.asset },
    Side: SIDE_CODES[e.side],
    LastQty: e.quantity,
    LastPx: e.price,
    Currency: e.notional_currency ?? 'USD',
    LeavesQty: 0,
    CumQty: e.quantity,
    AvgPx: e.price,
    TransactTime: new Date(e.execution_time),
  };
}

/** Streams `fills` to the engine's drop-copy acceptor in one FIX session; resolves once the session has logged out. */
export async function streamFills(options: DemoExchangeOptions, fills: DropCopyExecution[]): Promise<void> {
  const rt = await loadFix();
  const config = await exchangeConfig(rt, options);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const socket = await connectWhenListening(options.host, options.port, Date.now() + timeoutMs);

  class DemoExchange extends rt.fix.AsciiSession {
    private sentAll = false;

    constructor(c: IJsFixConfig) {
      super(c);
      this.logReceivedMsgs = false;
      this.checkMsgIntegrity = false;
    }

    protected override onApplicationMsg(): void {}

    protected override onReady(): void {
      fills.forEach((fill, i) => this.send('8', executionReport(fill, `DEMO-ORD-${i + 1}`)));
      this.sentAll = true;
      // The engine answers a TestRequest after reading every message before it, in order.
      this.send('1', { TestReqID: 'demo-drop-copy-sent' });
    }

    protected override onStopped(): void {}

    protected override onLogon(): boolean {
      return true;
    }

    protected override onMsg(msgType: string, view: MsgView): void {
      super.onMsg(msgType, view);
      if (this.sentAll && msgType === '0' && view.getString(112) === 'demo-drop-copy-sent') this.done();
    }

    protected override onDecoded(): void {}

    protected override onEncoded(): void {}
  }

  const scoped = rt.makeSessionScope(config);
  const session = new DemoExchange(scoped);
  const transport = new rt.fix.MsgTransport(1, scoped, new rt.fix.TcpDuplex(socket)) as MsgTransport;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      session.run(transport),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the demo exchange's FIX session did not complete within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    socket.destroy();
  }
}

/**
 * Connects once the engine listens: its session starts with the server, and loading the FIX engine takes it a
 * second or so. Refused connections are retried until the deadline.
 */
async function connectWhenListening(host: string, port: number, deadline: number): Promise<net.Socket> {
  for (;;) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect({ host, port }, () => {
          s.off('error', reject);
          resolve(s);
        });
        s.once('error', reject);
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNREFUSED' || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** jspurefix's configuration of the exchange's side, its own logs silent (the engine's log says what matters). */
async function exchangeConfig(rt: Awaited<ReturnType<typeof loadFix>>, o: DemoExchangeOptions): Promise<IJsFixConfig> {
  const silent = () => ({ info: () => {}, debug: () => {}, warning: () => {}, error: () => {} });
  const description = {
    Name: 'demo-exchange',
    application: {
      name: 'demo-exchange',
      type: 'initiator',
      protocol: 'ascii',
      dictionary: 'qf44',
      resilient: false,
      reconnectSeconds: 0,
      tcp: { host: o.host, port: o.port },
    },
    BeginString: 'FIX.4.4',
    SenderCompId: o.senderCompId,
    TargetCompID: o.targetCompId,
    HeartBtInt: 30,
    ResetSeqNumFlag: true,
    Username: '',
    Password: '',
    SenderSubID: '',
    TargetSubID: '',
  } as unknown as ISessionDescription;
  const container = new rt.fix.SessionContainer();
  container.registerGlobal({ logger: silent, plain: silent } as unknown as JsFixLoggerFactory);
  const child = await container.makeSystem(description);
  return child.resolve<IJsFixConfig>(rt.fix.DITokens.IJsFixConfig);
}
