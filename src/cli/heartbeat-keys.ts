/**
 * Which command manages which half of the heartbeat key pair, said in the help of each of them. Heartbeats
 * (Layer 2) are signed with one Ed25519 pair: the signal service holds the secret half (REGIME_SIGNING_KEY, or a
 * key kept in its store), the engine the public half (REGIME_OPERATOR_PUBKEY). Three commands touch it from the
 * side they serve: the signal service prints its public half, the regime operator signs with it, and a new pair
 * can be made offline. Each command's help ends with this text, so that whichever a newcomer finds first names
 * the other two, and the keys with similar names that are not this pair.
 */

export const HEARTBEAT_KEY_COMMANDS =
  "Heartbeat keys, one Ed25519 pair and three commands: `tradeseal signals heartbeat-key` prints the public key of the pair the signal service signs heartbeats with (REGIME_SIGNING_KEY, or the key kept in its store), the value of the engine's REGIME_OPERATOR_PUBKEY; `tradeseal regime heartbeat` signs one heartbeat with that key; `tradeseal engine keys gen` makes a new pair offline and stores nothing (its secret for REGIME_SIGNING_KEY or another issuer, its public key for REGIME_OPERATOR_PUBKEY). Other keys: the transparency log's (`tradeseal engine log key`) and the signal service's API keys (`tradeseal signals keys`).";
