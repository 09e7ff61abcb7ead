import { Flags } from '@oclif/core';
import { writeFileAtomic } from '../../src/core/atomic-file.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { publicKeyFlag } from '../../src/cli/log-source.js';
import { remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { gatherDays, growthProof, localTrackSource, readSavedHead, remoteTrackSource, type TrackSource } from '../../src/cli/track-source.js';
import type { SignedTreeHead } from '../../src/core/log/tree-head.js';
import { renderDayCheck, renderLogCheck } from '../../src/cli/track-view.js';
import { EXIT } from '../../src/core/errors.js';
import { fileError } from '../../src/core/file-errors.js';
import { signalDateParams } from '../../src/signals/inputs.js';
import { checkDayInTrackLog, type DayLogCheck } from '../../src/signals/track/day-check.js';
import { checkTrackLog, type TrackLogCheck } from '../../src/signals/track/log-check.js';

export default class SignalsVerify extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary =
    "Prove every logged day (or one, with --date) against the track log and a head you saved, trusting only the log's public key; exit 5 when a check fails";
  static override description = `Fetches the newest signed head, the consistency proof from the head you saved (--head) to it, each day's leaves with their inclusion proofs and the package served for the day now (from a remote service with --url and --key, or the local store), then checks them here: both heads are signed by the key you give; the tree you saved is a prefix of the newest (a truncated or forked log fails); each of the day's leaves is in the newest tree, of an entry type this tradeseal reads (signal-day/v1, or signal-day/v0 for a leaf logged before entry types); the first leaf is the original and says live only if it was logged within the live window of its available_at, any later one is a republication; no leaf was logged after a head that holds it; the package served now holds every field the newest leaf's entry type defines, with the value logged (a day changed without a new leaf fails; a field the service serves besides is not compared). Without --date, every day logged in the newest head that the key may read, one line each and a summary; with --date, that day. Exit 0 when every check passes, ${EXIT.refused} naming the failed checks (and days) otherwise. With --update-head, a passing check writes the newest head over the file, so the next check starts from it.`;
  static override examples = [
    '<%= config.bin %> signals verify --head heads/2026-11-01.json --public-key "$(cat track-log-key.hex)" --url https://signals.example.com --key rsk_… --update-head',
    '<%= config.bin %> signals verify --date 2026-11-25 --head heads/2026-11-01.json --public-key "$(cat track-log-key.hex)" --url https://signals.example.com --key rsk_…',
    '<%= config.bin %> signals verify --date 2026-11-25 --head saved-head.json --public-key "$(cat track-log-key.hex)" --update-head --json',
  ];
  static override flags = {
    date: Flags.string({ summary: 'The published day to prove (YYYY-MM-DD); without it, every logged day the key may read', helpValue: 'DATE' }),
    head: Flags.string({ summary: 'A head of the log you saved earlier (`tradeseal signals log head --out FILE`)', helpValue: 'FILE', required: true }),
    'public-key': Flags.string({
      summary: "The track log's Ed25519 public key you trust: 64 hex characters, base64 or PEM (its fingerprint is the heads' key_id)",
      helpValue: 'KEY',
      required: true,
    }),
    'update-head': Flags.boolean({ summary: 'When every check passes, replace the saved head with the newest one', default: false }),
    ...remoteFlags,
  };

  async run(): Promise<DayLogCheck | TrackLogCheck> {
    const { flags } = await this.parse(SignalsVerify);
    const date = flags.date === undefined ? null : checkRequest<{ date: string }>(signalDateParams, { date: flags.date }, 'params', { date: '--date' }).date;
    const publicKey = publicKeyFlag(flags['public-key']);
    const saved = await readSavedHead(flags.head, '--head');
    const remote = await remoteOf(flags, this.settings);
    const gather = async (source: TrackSource): Promise<{ result: DayLogCheck | TrackLogCheck; head: SignedTreeHead }> => {
      const head = await source.head();
      if (date === null) {
        const [consistency, logged] = await Promise.all([growthProof(source, saved.tree_size, head.tree_size), source.days(head.tree_size)]);
        const days = await gatherDays(source, logged.days, head.tree_size);
        return { result: checkTrackLog({ saved, head, consistency, publicKey, days, beyondHistory: logged.beyond_history }), head };
      }
      const [consistency, proof, served] = await Promise.all([
        growthProof(source, saved.tree_size, head.tree_size),
        source.proof(date, head.tree_size),
        source.served(date),
      ]);
      return { result: checkDayInTrackLog({ date, saved, head, consistency, proof, served, publicKey }), head };
    };
    const { result, head } = remote ? await gather(remoteTrackSource(remote)) : await this.withStore((store) => gather(localTrackSource(store.sql)));
    this.log('days' in result ? renderLogCheck(result) : renderDayCheck(result));
    if (!result.valid) this.exitWith(result, EXIT.refused);
    if (flags['update-head'] && head.tree_size !== saved.tree_size) {
      const file = flags.head;
      await writeFileAtomic(file, `${JSON.stringify(head, null, 2)}\n`).catch((err: unknown) => {
        throw fileError(err, { field: '--head', file, action: 'write' });
      });
      this.log(`the head of ${head.tree_size} leaves is saved to ${file}`);
    }
    return result;
  }
}
