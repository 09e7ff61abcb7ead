/**
 * The compliance officer's terminal view of the traces that need attention (`tradeseal engine orphans` on a
 * terminal). Tabs (./tabs.ts) across the top; the current tab's traces newest first, one keyset page at a
 * time sized to the terminal; Enter opens a trace (its whole served document, scrollable, long lines wrapped), `v` verifies its
 * hashes and checks its inclusion in the transparency log under a signed head, `/` filters by agent id prefix or asset, `n`/`p` page, `r` refreshes (it also refreshes by itself
 * every `refreshMs`), Esc goes back, `q` quits. Under the tab's description, the line of the FIX drop-copy
 * session (its state, when the peer last spoke, messages it refused), refreshed with the page; a filter being
 * typed or an error takes that line while it lasts. Nothing here writes to the store.
 */
import { Box, Text, useApp, useInput, type Key } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ListingItem } from '../../engine/store/traces.js';
import type { TraceVerification } from '../../engine/trace/read.js';
import { canonicalJson } from '../../core/crypto/jcs.js';
import type { DropCopyStatus } from '../../engine/dropcopy/status.js';
import { dropCopyLine } from '../dropcopy-view.js';
import { renderTable, type Header } from '../table.js';
import { wrapLine } from '../wrap.js';
import type { AttentionSource, LogInclusion } from './source.js';
import { keypresses, type Keypress } from './keys.js';
import { ATTENTION_TABS } from './tabs.js';

export interface AttentionAppProps {
  source: AttentionSource;
  width: number;
  height: number;
  refreshMs?: number;
}

type Cursor = { txn_time: Date; trace_id: string };

/** Lines the frame takes besides the rows: tabs, about, blank, header, rule, page line, keys. */
const CHROME_LINES = 7;
const HEADERS: Header[] = ['txn_time', 'trace_id', 'agent_id', 'action', 'asset', { name: 'notional', unit: 'currency' }, 'currency'];
const KEYS = '←/→ tab  ↑/↓ move  Enter open  v verify  / filter  n/p page  r refresh  q quit';

/** The drop-copy line's colour: logged on, logged on with refused messages, anything else. */
const TONES = { ok: 'green', warn: 'yellow', bad: 'red' } as const;

const time = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/** The verification's lines: the trace's own checks, then its place in the transparency log. */
function checkLines(verification: TraceVerification | null, log: LogInclusion | null): string[] {
  const lines: string[] = [];
  if (verification) {
    lines.push(
      ...verification.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}: ${c.detail}`),
      verification.valid ? 'the trace is valid' : 'the trace is NOT valid',
    );
  }
  if (log && 'unavailable' in log) lines.push(`· ${log.unavailable}`);
  else if (log) {
    // On 24 lines the document needs the room: every check when one failed, the proofs' outcome when all passed.
    const shown = log.check.valid
      ? log.check.checks.filter((c) => c.status === 'pass' && /inclusion$/.test(c.check))
      : log.check.checks.filter((c) => c.status === 'fail');
    lines.push(
      ...shown.map((c) => `${c.status === 'pass' ? '✓' : '✗'} log ${c.check}: ${c.detail}`),
      log.check.valid ? `in the transparency log: head of ${log.check.tree_size} signed, ${log.key}` : 'the trace is NOT proven in the transparency log',
    );
  }
  return lines;
}

/** The verification's lines wrapped to the view's width (none is cut off), each piece in its line's colour. */
function checkRows(
  verification: TraceVerification | null,
  log: LogInclusion | null,
  width: number,
): Array<{ text: string; color: 'red' | 'yellow' | 'green' }> {
  return checkLines(verification, log).flatMap((line) => {
    const color = line.startsWith('✗') || line.includes(' NOT ') ? 'red' : line.startsWith('·') ? 'yellow' : 'green';
    return wrapLine(line, width).map((text) => ({ text, color }) as const);
  });
}

/** What the keys move: the tab, its pages, the selected row, the filter (applied and being typed), an open trace. */
interface Nav {
  tab: number;
  pages: Array<Cursor | null>;
  selected: number;
  search: string | null;
  /** The filter being typed, or null. */
  typing: string | null;
  open: OpenTrace | null;
}

/** Which page of which tab under which filter: rows read are shown, and acted on, only on the page they were read for. */
const pageKey = (tab: number, search: string | null, after: Cursor | null): string =>
  JSON.stringify([tab, search, after && [after.txn_time.getTime(), after.trace_id]]);
const navKey = (n: Nav): string => pageKey(n.tab, n.search, n.pages[n.pages.length - 1] ?? null);

/** Keys that act on the rows of the page (moving down, paging on, opening, verifying). */
const onRows = (input: string, key: Key): boolean => key.return || key.downArrow || key.pageDown || input === 'n' || input === 'v';

interface Loaded {
  key: string | null;
  items: ListingItem[];
  hasMore: boolean;
}

interface OpenTrace {
  id: string;
  lines: string[];
  scroll: number;
  verification: TraceVerification | null;
  log: LogInclusion | null;
}

export function AttentionApp({ source, width, height, refreshMs = 5000 }: AttentionAppProps) {
  const { exit } = useApp();
  const rowsPerPage = Math.max(3, height - CHROME_LINES);
  const [nav, setNavState] = useState<Nav>({ tab: 0, pages: [null], selected: 0, search: null, typing: null, open: null });
  // The navigation as the keys left it. Keys that arrive before the view has redrawn (a burst, fast typing)
  // must each see what the keys before them did, not the state of the last drawing: every key reads and
  // writes this, and the drawing follows.
  const live = useRef(nav);
  const setNav = (change: (n: Nav) => Nav): void => {
    live.current = change(live.current);
    setNavState(live.current);
  };
  // The rows read, and for which page. After a key that changes the page (a tab, n, p, a filter) the rows
  // read before are not shown, and a key that acts on rows waits, with every key after it, until the new
  // page's rows are shown: `→⏎` in one burst opens a trace of the tab switched to.
  const [rows, setRowsState] = useState<Loaded>({ key: null, items: [], hasMore: false });
  const loaded = useRef(rows);
  const waiting = useRef<Keypress[]>([]);
  const handle = useRef<(input: string, key: Key) => void>(() => {});
  const [error, setError] = useState<string | null>(null);
  const [loadedAt, setLoadedAt] = useState<Date | null>(null);
  const [dropCopy, setDropCopy] = useState<DropCopyStatus | null>(null);
  /** Reads in flight (a page, a trace, a verification): shown as `loading…` until they end. */
  const [busy, setBusy] = useState(0);
  const loads = useRef(0);

  const { tab, pages, selected, search, typing, open } = nav;
  const after = pages[pages.length - 1] ?? null;
  const current = ATTENTION_TABS[tab]!;
  const { items, hasMore } = rows.key === navKey(nav) ? rows : { items: [], hasMore: false };

  /** The keys that waited for rows, in order, now that rows were read (or could not be). */
  const drain = (): void => {
    const keys = waiting.current;
    waiting.current = [];
    for (const k of keys) handle.current(k.input, k.key);
  };

  const load = useCallback(async () => {
    const ticket = ++loads.current;
    setBusy((n) => n + 1);
    try {
      const [page, session] = await Promise.all([source.page(current, { search, after, limit: rowsPerPage }), source.dropCopy()]);
      if (ticket !== loads.current) return;
      loaded.current = { key: pageKey(tab, search, after), items: page.items, hasMore: page.hasMore };
      setRowsState(loaded.current);
      setDropCopy(session);
      setNav((n) => ({ ...n, selected: Math.min(n.selected, Math.max(0, page.items.length - 1)) }));
      setError(null);
      setLoadedAt(new Date());
      drain();
    } catch (e) {
      if (ticket !== loads.current) return;
      setError((e as Error).message);
      // The page could not be read: the keys waiting for its rows are dropped, the screen shows why.
      waiting.current = [];
    } finally {
      setBusy((n) => n - 1);
    }
  }, [source, tab, current, search, after, rowsPerPage]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => clearInterval(timer);
  }, [load, refreshMs]);

  const openTrace = async (id: string, verify: boolean): Promise<void> => {
    setBusy((n) => n + 1);
    try {
      const document = await source.trace(id);
      const [verification, log] = verify ? await Promise.all([source.verify(id), source.inLog(id)]) : [null, null];
      // Members in JCS order, whichever source served the document (a remote engine's follow its schema). A line
      // wider than the view wraps, a value hanging under its member, so hashes and ids are shown whole, never cut.
      const json = document ? JSON.stringify(JSON.parse(canonicalJson(document)), null, 2).split('\n') : [`no trace ${id}`];
      const lines = json.flatMap((line) => wrapLine(line, width));
      setNav((n) => ({ ...n, open: { id, lines, scroll: 0, verification, log } }));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy((n) => n - 1);
    }
  };

  /** One key, applied to the navigation as the keys before it left it. */
  const onKey = (input: string, key: Key): void => {
    const n = live.current;
    if (waiting.current.length > 0 || (n.typing === null && !n.open && onRows(input, key) && loaded.current.key !== navKey(n))) {
      waiting.current.push({ input, key });
      return;
    }
    if (n.typing !== null) {
      const typed = n.typing;
      if (key.return) setNav((m) => ({ ...m, search: typed.trim() === '' ? null : typed.trim(), typing: null, pages: [null], selected: 0 }));
      else if (key.escape) setNav((m) => ({ ...m, typing: null }));
      else if (key.backspace || key.delete) setNav((m) => ({ ...m, typing: typed.slice(0, -1) }));
      else if (input && !key.ctrl && !key.meta && !key.tab) setNav((m) => ({ ...m, typing: typed + input }));
      return;
    }
    if (input === 'q') {
      exit();
      return;
    }
    const o = n.open;
    if (o) {
      const body = Math.max(1, height - 4 - checkRows(o.verification, o.log, width).length);
      const last = Math.max(0, o.lines.length - body);
      const scrollTo = (scroll: number): void => setNav((m) => ({ ...m, open: m.open && { ...m.open, scroll: Math.max(0, Math.min(scroll, last)) } }));
      if (key.escape || key.backspace || key.leftArrow) setNav((m) => ({ ...m, open: null }));
      else if (key.downArrow) scrollTo(o.scroll + 1);
      else if (key.upArrow) scrollTo(o.scroll - 1);
      else if (key.pageDown || input === ' ') scrollTo(o.scroll + body);
      else if (key.pageUp) scrollTo(o.scroll - body);
      else if (input === 'v') void openTrace(o.id, true);
      return;
    }
    // Not waiting: the rows read are those of this page.
    const { items: rows, hasMore: more } = loaded.current;
    const item = rows[n.selected];
    const switchTab = (by: number): void =>
      setNav((m) => ({ ...m, tab: (m.tab + by + ATTENTION_TABS.length) % ATTENTION_TABS.length, pages: [null], selected: 0 }));
    if (key.rightArrow || key.tab) switchTab(1);
    else if (key.leftArrow) switchTab(-1);
    else if (key.downArrow) setNav((m) => ({ ...m, selected: Math.min(m.selected + 1, Math.max(0, rows.length - 1)) }));
    else if (key.upArrow) setNav((m) => ({ ...m, selected: Math.max(0, m.selected - 1) }));
    else if ((input === 'n' || key.pageDown) && more && rows.length > 0) {
      const lastRow = rows[rows.length - 1]!;
      setNav((m) => ({ ...m, pages: [...m.pages, { txn_time: lastRow.txn_time, trace_id: lastRow.trace_id }], selected: 0 }));
    } else if ((input === 'p' || key.pageUp) && n.pages.length > 1) {
      setNav((m) => ({ ...m, pages: m.pages.slice(0, -1), selected: 0 }));
    } else if (input === '/') setNav((m) => ({ ...m, typing: m.search ?? '' }));
    else if (input === 'r') void load();
    else if (key.return && item) void openTrace(item.trace_id, false);
    else if (input === 'v' && item) void openTrace(item.trace_id, true);
  };

  handle.current = onKey;
  useInput((input, key) => {
    for (const k of keypresses(input, key)) onKey(k.input, k.key);
  });

  if (open) {
    const checks = checkRows(open.verification, open.log, width);
    const body = Math.max(1, height - 4 - checks.length);
    return (
      <Box flexDirection="column" width={width}>
        <Text bold wrap="truncate-end">
          trace {open.id}
        </Text>
        {checks.map((row, i) => (
          <Text key={`c${i}`} color={row.color} wrap="truncate-end">
            {row.text}
          </Text>
        ))}
        {open.lines.slice(open.scroll, open.scroll + body).map((line, i) => (
          <Text key={`l${i}`} wrap="truncate-end">
            {line === '' ? ' ' : line}
          </Text>
        ))}
        <Text dimColor wrap="truncate-end">
          {busy > 0 ? 'loading…  ' : ''}lines {open.scroll + 1}-{Math.min(open.lines.length, open.scroll + body)} of {open.lines.length} ↑/↓ scroll v verify Esc
          back q quit
        </Text>
      </Box>
    );
  }

  const session = dropCopy ? dropCopyLine(dropCopy) : null;
  const table = renderTable(
    HEADERS,
    items.map((t) => [time(t.txn_time), t.trace_id, t.agent_id, t.action, t.asset, t.notional, t.notional_currency]),
    { width: width - 2, shortIds: true },
  ).split('\n');
  const page = pages.length;
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        {ATTENTION_TABS.map((t, i) => (
          <Text key={t.id} inverse={i === tab} bold={i === tab}>{` ${t.label} `}</Text>
        ))}
      </Box>
      {/* An active filter leads its line, so a narrow terminal never cuts it off. */}
      <Text dimColor wrap="truncate-end">
        {search ? `filter: ${search} (/ changes it); ` : ''}
        {current.about}
      </Text>
      {typing === null && !error && session ? (
        <Text color={TONES[session.tone]} wrap="truncate-end">
          {session.text}
        </Text>
      ) : (
        <Text wrap="truncate-end">
          {typing !== null ? `filter: ${typing}█  agent id prefix or asset; Enter applies, Esc cancels` : error ? `error: ${error}` : ' '}
        </Text>
      )}
      {items.length === 0 ? (
        <Text>
          {rows.key !== navKey(nav)
            ? error
              ? ' '
              : 'loading…'
            : `nothing ${current.label === 'STALE PENDING' ? 'stale' : `in ${current.label}`}${search ? ' for this filter' : ''}; reading ${source.readsFrom}`}
        </Text>
      ) : (
        table.map((line, i) => <Text key={i} inverse={i - 2 === selected} wrap="truncate-end">{`${i - 2 === selected ? '›' : ' '} ${line}`}</Text>)
      )}
      <Text dimColor wrap="truncate-end">
        {busy > 0 ? 'loading…  ' : ''}page {page}
        {hasMore ? ', more: n' : ''}
        {page > 1 ? ', back: p' : ''}
        {loadedAt ? `  refreshed ${loadedAt.toISOString().slice(11, 19)} UTC` : ''}
      </Text>
      <Text dimColor wrap="truncate-end">
        {KEYS}
      </Text>
    </Box>
  );
}
