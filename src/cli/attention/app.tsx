/**
 * The compliance officer's terminal view of the traces that need attention (`tradeseal engine orphans` on a
 * terminal). Tabs (./tabs.ts) across the top; the current tab's traces newest first, one keyset page at a
 * time sized to the terminal; Enter opens a trace (its whole served document, scrollable), `v` verifies its
 * hashes and checks its inclusion in the transparency log under a signed head, `/` filters by agent id prefix or asset, `n`/`p` page, `r` refreshes (it also refreshes by itself
 * every `refreshMs`), Esc goes back, `q` quits. Nothing here writes to the store.
 */
import { Box, Text, useApp, useInput } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ListingItem } from '../../engine/store/traces.js';
import type { TraceVerification } from '../../engine/trace/read.js';
import { canonicalJson } from '../../crypto/jcs.js';
import { renderTable } from '../table.js';
import type { AttentionSource, LogInclusion } from './source.js';
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
const HEADERS = ['txn_time', 'trace_id', 'agent_id', 'action', 'asset', 'notional'];
const KEYS = '←/→ tab  ↑/↓ move  Enter open  v verify  / filter  n/p page  r refresh  q quit';

const time = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/** The verification's lines: the trace's own checks, then its place in the transparency log. */
function checkLines(verification: TraceVerification | null, log: LogInclusion | null): string[] {
  const lines: string[] = [];
  if (verification) {
    lines.push(...verification.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}: ${c.detail}`), verification.valid ? 'the trace is valid' : 'the trace is NOT valid');
  }
  if (log && 'unavailable' in log) lines.push(`· ${log.unavailable}`);
  else if (log) {
    // On 24 lines the document needs the room: every check when one failed, the proofs' outcome when all passed.
    const shown = log.check.valid ? log.check.checks.filter((c) => c.status === 'pass' && /inclusion$/.test(c.check)) : log.check.checks.filter((c) => c.status === 'fail');
    lines.push(...shown.map((c) => `${c.status === 'pass' ? '✓' : '✗'} log ${c.check}: ${c.detail}`),
      log.check.valid ? `in the transparency log: head of ${log.check.tree_size} signed, ${log.key}` : 'the trace is NOT proven in the transparency log');
  }
  return lines;
}

export function AttentionApp({ source, width, height, refreshMs = 5000 }: AttentionAppProps) {
  const { exit } = useApp();
  const rowsPerPage = Math.max(3, height - CHROME_LINES);
  const [tab, setTab] = useState(0);
  const [pages, setPages] = useState<Array<Cursor | null>>([null]);
  const [items, setItems] = useState<ListingItem[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [selected, setSelected] = useState(0);
  const [search, setSearch] = useState<string | null>(null);
  // The filter being typed. Mirrored in a ref: keys that arrive before the view has redrawn (fast typing) must
  // see what the keys before them did, not the state of the last drawing.
  const [typing, setTypingState] = useState<string | null>(null);
  const typingRef = useRef<string | null>(null);
  const setTyping = (value: string | null): void => {
    typingRef.current = value;
    setTypingState(value);
  };
  const [error, setError] = useState<string | null>(null);
  const [loadedAt, setLoadedAt] = useState<Date | null>(null);
  /** Reads in flight (a page, a trace, a verification): shown as `loading…` until they end. */
  const [busy, setBusy] = useState(0);
  const [open, setOpen] = useState<{ id: string; lines: string[]; scroll: number; verification: TraceVerification | null; log: LogInclusion | null } | null>(null);
  const loads = useRef(0);

  const after = pages[pages.length - 1] ?? null;
  const current = ATTENTION_TABS[tab]!;

  const load = useCallback(async () => {
    const ticket = ++loads.current;
    setBusy((n) => n + 1);
    try {
      const page = await source.page(current, { search, after, limit: rowsPerPage });
      if (ticket !== loads.current) return;
      setItems(page.items);
      setHasMore(page.hasMore);
      setSelected((s) => Math.min(s, Math.max(0, page.items.length - 1)));
      setError(null);
      setLoadedAt(new Date());
    } catch (e) {
      if (ticket === loads.current) setError((e as Error).message);
    } finally {
      setBusy((n) => n - 1);
    }
  }, [source, current, search, after, rowsPerPage]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => clearInterval(timer);
  }, [load, refreshMs]);

  const switchTab = (by: number): void => {
    setTab((t) => (t + by + ATTENTION_TABS.length) % ATTENTION_TABS.length);
    setPages([null]);
    setSelected(0);
  };

  const openTrace = async (id: string, verify: boolean): Promise<void> => {
    setBusy((n) => n + 1);
    try {
      const document = await source.trace(id);
      const [verification, log] = verify ? await Promise.all([source.verify(id), source.inLog(id)]) : [null, null];
      // Members in JCS order, whichever source served the document (a remote engine's follow its schema).
      const lines = document ? JSON.stringify(JSON.parse(canonicalJson(document)), null, 2).split('\n') : [`no trace ${id}`];
      setOpen({ id, lines, scroll: 0, verification, log });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy((n) => n - 1);
    }
  };

  useInput((input, key) => {
    const typing = typingRef.current;
    if (typing !== null) {
      if (key.return) {
        setSearch(typing.trim() === '' ? null : typing.trim());
        setTyping(null);
        setPages([null]);
        setSelected(0);
      } else if (key.escape) setTyping(null);
      else if (key.backspace || key.delete) setTyping(typing.slice(0, -1));
      else if (input && !key.ctrl && !key.meta) setTyping(typing + input);
      return;
    }
    if (input === 'q') {
      exit();
      return;
    }
    if (open) {
      const body = Math.max(1, height - 4 - checkLines(open.verification, open.log).length);
      if (key.escape || key.backspace || key.leftArrow) setOpen(null);
      else if (key.downArrow) setOpen({ ...open, scroll: Math.min(open.scroll + 1, Math.max(0, open.lines.length - body)) });
      else if (key.upArrow) setOpen({ ...open, scroll: Math.max(0, open.scroll - 1) });
      else if (key.pageDown || input === ' ') setOpen({ ...open, scroll: Math.min(open.scroll + body, Math.max(0, open.lines.length - body)) });
      else if (key.pageUp) setOpen({ ...open, scroll: Math.max(0, open.scroll - body) });
      else if (input === 'v') void openTrace(open.id, true);
      return;
    }
    const item = items[selected];
    if (key.rightArrow || key.tab) switchTab(1);
    else if (key.leftArrow) switchTab(-1);
    else if (key.downArrow) setSelected((s) => Math.min(s + 1, Math.max(0, items.length - 1)));
    else if (key.upArrow) setSelected((s) => Math.max(0, s - 1));
    else if ((input === 'n' || key.pageDown) && hasMore && items.length > 0) {
      const last = items[items.length - 1]!;
      setPages([...pages, { txn_time: last.txn_time, trace_id: last.trace_id }]);
      setSelected(0);
    } else if ((input === 'p' || key.pageUp) && pages.length > 1) {
      setPages(pages.slice(0, -1));
      setSelected(0);
    } else if (input === '/') setTyping(search ?? '');
    else if (input === 'r') void load();
    else if (key.return && item) void openTrace(item.trace_id, false);
    else if (input === 'v' && item) void openTrace(item.trace_id, true);
  });

  if (open) {
    const checks = checkLines(open.verification, open.log);
    const body = Math.max(1, height - 4 - checks.length);
    return (
      <Box flexDirection="column" width={width}>
        <Text bold wrap="truncate-end">trace {open.id}</Text>
        {checks.map((line, i) => (
          <Text key={`c${i}`} color={line.startsWith('✗') || line.includes(' NOT ') ? 'red' : line.startsWith('·') ? 'yellow' : 'green'} wrap="truncate-end">{line}</Text>
        ))}
        {open.lines.slice(open.scroll, open.scroll + body).map((line, i) => (
          <Text key={`l${i}`} wrap="truncate-end">{line === '' ? ' ' : line}</Text>
        ))}
        <Text dimColor wrap="truncate-end">{busy > 0 ? 'loading…  ' : ''}lines {open.scroll + 1}-{Math.min(open.lines.length, open.scroll + body)} of {open.lines.length}  ↑/↓ scroll  v verify  Esc back  q quit</Text>
      </Box>
    );
  }

  const table = renderTable(HEADERS, items.map((t) => [time(t.txn_time), t.trace_id, t.agent_id, t.action, t.asset, `${t.notional} ${t.notional_currency}`]), { width: width - 2, shortIds: true }).split('\n');
  const page = pages.length;
  return (
    <Box flexDirection="column" width={width}>
      <Box>
        {ATTENTION_TABS.map((t, i) => (
          <Text key={t.id} inverse={i === tab} bold={i === tab}>{` ${t.label} `}</Text>
        ))}
      </Box>
      <Text dimColor wrap="truncate-end">{current.about}{search ? `; filter: ${search}` : ''}</Text>
      <Text wrap="truncate-end">{typing !== null ? `filter (agent id prefix or asset, Enter to apply, Esc to cancel): ${typing}█` : error ? `error: ${error}` : ' '}</Text>
      {items.length === 0 ? (
        <Text>{loadedAt ? `nothing ${current.label === 'STALE PENDING' ? 'stale' : `in ${current.label}`}${search ? ' for this filter' : ''}` : 'loading…'}</Text>
      ) : (
        table.map((line, i) => (
          <Text key={i} inverse={i - 2 === selected} wrap="truncate-end">{`${i - 2 === selected ? '›' : ' '} ${line}`}</Text>
        ))
      )}
      <Text dimColor wrap="truncate-end">{busy > 0 ? 'loading…  ' : ''}page {page}{hasMore ? ', more: n' : ''}{page > 1 ? ', back: p' : ''}{loadedAt ? `  refreshed ${loadedAt.toISOString().slice(11, 19)} UTC` : ''}</Text>
      <Text dimColor wrap="truncate-end">{KEYS}</Text>
    </Box>
  );
}
