/**
 * How long the initiator waits before connecting to the exchange again: FIX_DROPCOPY_RECONNECT_S after the first
 * failure (or after a session that had logged on ends), doubling with each attempt that fails in a row, bounded
 * by FIX_DROPCOPY_RECONNECT_MAX_S; each wait drawn between half of that and all of it, so that servers restarted
 * together do not call the exchange in step. Pure (the draw is given).
 */
export function reconnectDelayMs(failures: number, baseS: number, maxS: number, draw: () => number = Math.random): number {
  const ceiling = Math.min(Math.max(maxS, baseS), baseS * 2 ** Math.max(0, Math.min(failures - 1, 30))) * 1000;
  return Math.round(ceiling / 2 + draw() * (ceiling / 2));
}
