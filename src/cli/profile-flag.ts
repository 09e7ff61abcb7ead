/** `--profile`: the named profile (./profiles.ts) a remote-capable command takes its URLs, token and key from. */
import { Flags } from '@oclif/core';

export const profileFlag = Flags.string({
  summary: 'Take the remote URL, token and key from this profile of TRADESEAL_PROFILES_FILE (default: TRADESEAL_PROFILE)',
  helpValue: 'NAME',
});
