import { Flags } from '@oclif/core';
import { engineSource } from '../src/cli/attention/source.js';
import { TradesealCommand } from '../src/cli/base-command.js';
import { ensureDir } from '../src/core/file-errors.js';
import { renderDemo } from '../src/cli/demo-view.js';
import { tableStyle } from '../src/cli/table-flags.js';
import { fullScreenPossible } from '../src/cli/terminal.js';
import { demoHome } from '../src/demo/home.js';
import type { DemoSummary } from '../src/demo/run.js';
import { logKeyLoader } from '../src/engine/store/log-key.js';

export default class Demo extends TradesealCommand {
  static override summary = 'See the product work: both services, simulated agents, and what a compliance officer gets to see';
  static override description =
    "On an embedded store of its own (under --home, never the store of DATABASE_URL), runs the pipeline on the bundled data if nothing is published there yet, starts the engine and the signal service on one port with Layer 2 on, and drives simulated agents through heartbeat, authorize, a simulated exchange fill and bind: a clean fill (MATCHED), a partial fill (DIVERGENT), a fill on the other side (MISMATCH), an order over the agent's cap (403), a replayed heartbeat (403), an idempotent retry, an order shadow mode lets through (SHADOW_HALTED), one never filled (EXPIRED after the demo's 3 s expiry) and an execution nobody authorized (ORPHAN, from a drop copy). The bundled data end in 2025 and the engine refuses orders on stale data: the demo says so, publishes an operator's broadcast of the latest published regime and releases it at the end. On a terminal it then opens the compliance officers' view on the running demo (q ends the demo). Run it again to add a day of traces to the same store.";
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --no-view --json > demo.json',
    '<%= config.bin %> demo --home /tmp/tradeseal-demo --port 8090',
  ];
  static override flags = {
    home: Flags.string({
      summary: "Directory of the demo's own embedded store (default: demo under TRADESEAL_HOME, or TRADESEAL_HOME itself when it is a demo's store)",
      helpValue: 'DIR',
    }),
    port: Flags.integer({ summary: "Port of the demo's services (default: a free one)", min: 0, max: 65535, default: 0 }),
    view: Flags.boolean({ summary: "Open the compliance officers' view at the end on a terminal (--no-view: do not)", default: true, allowNo: true }),
  };

  async run(): Promise<DemoSummary> {
    const { flags } = await this.parse(Demo);
    const quiet = this.jsonEnabled();
    const say = (line: string): void => {
      if (!quiet) this.logToStderr(line);
    };
    const openView = flags.view && !quiet && fullScreenPossible();
    // A --home that is a file, or where no directory can be made, is said as --home's mistake, before anything starts.
    if (flags.home !== undefined) await ensureDir(flags.home, '--home');
    // The services (Fastify), the pipeline (DuckDB) and the view (ink) load when the demo runs, not when the CLI starts.
    const { runDemo } = await import('../src/demo/run.js');
    const { listrRunner } = await import('../src/cli/pipeline-view.js');
    const { openAttentionView } = await import('../src/cli/attention/open.js');
    const summary = await runDemo(this.settings, {
      home: demoHome(this.settings.home, flags.home),
      port: flags.port,
      runner: listrRunner(quiet),
      say,
      whileRunning: openView
        ? async (server, owner) => {
            say("opening the compliance officers' view of the running demo (q quits, and the demo ends)");
            const logKey = (await logKeyLoader(server.store.sql, this.settings)()).publicKey;
            await openAttentionView(engineSource({ url: server.url, token: owner }, logKey));
          }
        : undefined,
    });
    this.log(renderDemo(summary, tableStyle({})));
    return summary;
  }
}
