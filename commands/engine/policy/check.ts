import path from 'node:path';
import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { loadPolicy, type Policy } from '../../../src/engine/policy/policy.js';
import { isTradesealError, TradesealError } from '../../../src/core/errors.js';

export default class EnginePolicyCheck extends TradesealCommand {
  static override summary = 'Validate a policy file; list every bad field';
  static override description =
    'Exit code 0 when the file is a valid policy (with its hash, the policy.hash traces sealed under it will carry), 2 when it is not, with each invalid field.';
  static override examples = [
    '<%= config.bin %> engine policy check data/policy/default.json',
    '<%= config.bin %> engine policy check policies/2026-q2.json --json',
  ];
  static override args = { file: Args.string({ description: 'The policy JSON file', required: true }) };

  async run(): Promise<{ file: string; valid: true; id: string; version: string; hash: string }> {
    const { args } = await this.parse(EnginePolicyCheck);
    const file = path.resolve(args.file);
    let policy: Policy;
    try {
      policy = loadPolicy(file);
    } catch (err) {
      // The engine's message names every field inline (one line for a server log); here they are listed below it.
      if (!isTradesealError(err) || !err.errors) throw err;
      throw new TradesealError(err.code, `${args.file} is not a valid policy: ${err.errors.length} invalid field${err.errors.length === 1 ? '' : 's'}`, {
        errors: err.errors,
        hint: 'compare with data/policy/default.json',
      });
    }
    this.log(`${args.file}: valid, hash ${policy.hash} (${policy.document.id} ${policy.document.version})`);
    return { file, valid: true, id: policy.document.id, version: policy.document.version, hash: policy.hash };
  }
}
