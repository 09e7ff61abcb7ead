import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderPolicy } from '../../../src/cli/policy-view.js';
import { reportFlags, reportStyle } from '../../../src/cli/table-flags.js';
import { wrapText } from '../../../src/cli/wrap.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { loadPolicy, type PolicyDocument } from '../../../src/engine/policy/policy.js';

export default class EnginePolicyShow extends TradesealCommand {
  static override summary = 'Show the policy in force (POLICY_PATH): id, version, hash, per-regime rules and caps';
  static override description =
    "The hash is the policy.hash every trace sealed under this file carries. An engine reads POLICY_PATH when it starts; a running engine keeps the policy it started with; with --url (or a profile) the command shows that engine's policy in force.";
  static override examples = [
    '<%= config.bin %> engine policy show',
    'POLICY_PATH=policies/2026-q2.json <%= config.bin %> engine policy show --json',
    '<%= config.bin %> engine policy show --profile prod',
  ];

  static override flags = { ...engineRemoteFlags, ...reportFlags };

  async run(): Promise<{ file: string | null; id: string; version: string; hash: string; document: PolicyDocument }> {
    const { flags } = await this.parse(EnginePolicyShow);
    const style = reportStyle(flags);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote) {
      // The policy the remote engine enforces: it read it from its own POLICY_PATH when it started.
      const served = await askEngine<{ id: string; version: string; hash: string; document: PolicyDocument }>(remote, 'GET', '/engine/policy', {
        revive: false,
      });
      this.log(wrapText(renderPolicy({ document: served.document, hash: served.hash }, `${remote.url} (in force there)`, style), style.width));
      return { file: null, ...served };
    }
    const file = this.settings.policyPath;
    const policy = loadPolicy(file);
    this.log(wrapText(renderPolicy(policy, file, style), style.width));
    return { file, id: policy.document.id, version: policy.document.version, hash: policy.hash, document: policy.document };
  }
}
