/**
 * The first day a run can publish: the first day on which every model input has a value (trailing windows
 * full), plus the burn-in of the walk-forward. Read from the whole data set, so that a run cut before it
 * (`--as-of`) can name the day it should have asked for.
 */
import { loadFeatureFrame } from '../features/frame.js';
import { firstCompleteIndex } from './walk-forward.js';

export async function firstPublishableDay(dataDir: string, burnInDays: number): Promise<string | null> {
  const frame = await loadFeatureFrame(dataDir);
  return frame.dates[firstCompleteIndex(frame) + burnInDays] ?? null;
}
