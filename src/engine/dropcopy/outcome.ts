/** What became of a drop-copy fill: reconciled with its trace (matched or divergent), an orphan, seen before, or in conflict. */
export type FillOutcome = 'matched' | 'divergent' | 'orphan' | 'already_known' | 'duplicate' | 'conflict';
