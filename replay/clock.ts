/**
 * The replay's simulated clock: it reads what it was set to and moves only when told, or when something sleeps
 * on it (a night waiting to try again moves it on by its wait). Everything the replay runs on simulated time
 * (the nights, the pipeline's runs, the engine and the signal service) reads this one clock.
 */
export class SimulatedClock {
  constructor(private ms: number) {}

  readonly now = (): number => this.ms;

  /** Moves the clock to `ms`; never back. */
  set(ms: number): void {
    if (ms < this.ms) throw new RangeError(`the simulated clock does not go back: ${new Date(ms).toISOString()} is before ${new Date(this.ms).toISOString()}`);
    this.ms = ms;
  }

  /** A sleep on simulated time: the clock moves on by `ms` at once. */
  readonly sleep = async (ms: number): Promise<void> => {
    this.ms += ms;
  };
}
