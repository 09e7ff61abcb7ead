/** Who did it, when the CLI changes engine state: `cli:<os user>` (for `published_by` and `changed_by`). */
import os from 'node:os';

export function cliActor(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    // A container user with no passwd entry has no name; the uid still says who it was.
    user = typeof process.getuid === 'function' ? `uid ${process.getuid()}` : 'unknown';
  }
  return `cli:${user}`;
}
