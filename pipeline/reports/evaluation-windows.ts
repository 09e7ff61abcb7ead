/**
 * The windows over which the published regimes are judged, in one place: `npm run bench:signal`, `tradeseal
 * quant evaluate`, the README ("Signal quality") and any research on the regime method name the same days.
 *
 * - **full**: 2007-01-01 to 2025-12-31, the span of the bundled data's published history (a caller may give
 *   other bounds);
 * - **in-sample**: 2007-01-01 to 2016-12-31, the years on which a change of the method may be tried and chosen;
 * - **out-of-sample**: 2017-01-01 to 2025-12-31, the years held back to judge the choice.
 *
 * The model itself is point-in-time in every window (each day uses only data usable that day); "in-sample"
 * is about the choice of the method, not the fit. Both bounds of a window are calendar dates, inclusive. A
 * window only narrows the days that are evaluated: a day's exposure still comes from the day before it and
 * the 200 closes before it, wherever the window begins.
 */

export interface DateWindow {
  /** First calendar day, YYYY-MM-DD, inclusive. */
  from: string;
  /** Last calendar day, YYYY-MM-DD, inclusive. */
  to: string;
}

export const WINDOW_NAMES = ['full', 'in_sample', 'out_of_sample'] as const;
export type WindowName = (typeof WINDOW_NAMES)[number];

export const EVALUATION_WINDOWS: Readonly<Record<WindowName, Readonly<DateWindow>>> = Object.freeze({
  full: Object.freeze({ from: '2007-01-01', to: '2025-12-31' }),
  in_sample: Object.freeze({ from: '2007-01-01', to: '2016-12-31' }),
  out_of_sample: Object.freeze({ from: '2017-01-01', to: '2025-12-31' }),
});

/** How the windows are named in tables and sentences. */
export const WINDOW_LABELS: Readonly<Record<WindowName, string>> = Object.freeze({ full: 'full', in_sample: 'in-sample', out_of_sample: 'out-of-sample' });

/** The full window a caller asks for: its bounds, the default's where it gives none. */
export function fullWindow(asked: Partial<DateWindow> = {}): DateWindow {
  return { from: asked.from ?? EVALUATION_WINDOWS.full.from, to: asked.to ?? EVALUATION_WINDOWS.full.to };
}

/** The days of `w` that are also in `within` (empty, from after to, when they do not overlap). */
export function intersect(w: Readonly<DateWindow>, within: Readonly<DateWindow>): DateWindow {
  return { from: w.from > within.from ? w.from : within.from, to: w.to < within.to ? w.to : within.to };
}

export const inWindow = (date: string, w: Readonly<DateWindow>): boolean => date >= w.from && date <= w.to;
