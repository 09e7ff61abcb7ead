import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderPolicy } from '../../../src/cli/policy-view.js';
import { loadPolicy, type PolicyDocument } from '../../../src/engine/policy/policy.js';

export default class EnginePolicyShow extends TradesealCommand {
  static override summary = 'Show the policy in force (POLICY_PATH): id, version, hash, per-regime rules and caps';
  static override description = 'The hash is the policy.hash every trace sealed under this file carries. An engine reads POLICY_PATH when it starts; a running engine keeps the policy it started with.';
  static override examples = ['<%= config.bin %> engine policy show', 'POLICY_PATH=policies/2026-q2.json <%= config.bin %> engine policy show --json'];

  async run(): Promise<{ file: string; id: string; version: string; hash: string; document: PolicyDocument }> {
    await this.parse(EnginePolicyShow);
    const file = this.settings.policyPath;
    const policy = loadPolicy(file);
    this.log(renderPolicy(policy, file));
    return { file, id: policy.document.id, version: policy.document.version, hash: policy.hash, document: policy.document };
  }
}
