/**
 * The compliance officer's terminal view (`engine orphans` on a terminal), driven with ink-testing-library
 * over traces made through the HTTP app and read from the real store: tabs, moving, keyset pages sized to
 * the terminal, opening a trace, verifying it, filtering, and staying within 80 columns.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeSource } from '../../src/cli/attention/source.js';
import { sequenceOnce } from '../../src/engine/store/log-sequence.js';
import { logKeyLoader } from '../../src/engine/store/log-key.js';
import { frameWhen, idle, KEY, openView, settle } from '../helpers/attention-view.js';
import { cliEnv, REPO_ROOT, tempHome } from '../helpers/cli.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const HOUR = 3_600_000;
let h: EngineHarness;
const mismatched: string[] = [];
let divergent = '';
let stale = '';
let otherAgent = '';

beforeAll(async () => {
  h = await engineHarness({ policy: { agent_valid_time_max_lag_ms: 3 * HOUR } });
  await h.publishRegime('expansion');
  const agent = await h.registerAgent();
  const other = await h.registerAgent();
  otherAgent = other.agent_id;
  const authorize = async (who: { agent_id: string; token: string }, asset = 'AAPL'): Promise<string> => {
    const res = await h.call('POST', '/engine/authorize', h.order(who.agent_id, { asset }), who.token);
    if (res.statusCode !== 200) throw new Error(`authorize: ${res.body}`);
    return res.json().trace_id;
  };
  const bind = async (who: { token: string }, traceId: string, fill: Record<string, unknown>): Promise<void> => {
    const res = await h.call(
      'POST',
      '/engine/bind-execution',
      {
        trace_id: traceId,
        exchange_tx_id: `X-${traceId}`,
        execution_status: 'Filled',
        asset: 'AAPL',
        executed_quantity: 100,
        executed_side: 'Long',
        ...fill,
      },
      who.token,
    );
    if (res.statusCode !== 200) throw new Error(`bind: ${res.body}`);
  };
  const realNow = h.clock.now;
  h.clock.now = realNow - 2 * HOUR;
  stale = await authorize(agent);
  h.clock.now = realNow - HOUR / 2;
  // Twelve MISMATCH traces, one a second apart (newest last), one of them of the other agent on MSFT.
  for (let i = 0; i < 12; i++) {
    h.clock.now += 1000;
    const who = i === 5 ? other : agent;
    const id = await authorize(who, i === 5 ? 'MSFT' : 'AAPL');
    await bind(who, id, { executed_side: 'Short', asset: i === 5 ? 'MSFT' : 'AAPL' });
    mismatched.unshift(id);
  }
  h.clock.now = realNow;
  divergent = await authorize(agent);
  await bind(agent, divergent, { executed_quantity: 50 });
}, 120_000);
afterAll(async () => h?.close());

const open = (height = 24) => openView(storeSource(h.store.sql, null, { log: { config: h.config, publicKey: null } }), height);

describe('the terminal view of traces needing attention', () => {
  it("opens on the first tab, moves between tabs, and lists each tab's traces with short ids, within 80 columns", async () => {
    const { view, press, frame } = await open();
    try {
      expect(frame().split('\n')[0]).toBe(' DIVERGENT  EXPIRED  MISMATCH  ORPHAN  SHADOW_HALTED  STALE PENDING');
      expect(frame()).toContain(divergent.slice(0, 8));
      expect(frame()).not.toContain(divergent);
      const mismatch = await press(KEY.right, KEY.right);
      expect(mismatch).toContain('bound on another side or asset than authorized');
      for (const id of mismatched) expect(mismatch).toContain(id.slice(0, 8));
      expect(await press(KEY.right)).toContain('nothing in ORPHAN');
      const stalePage = await press(KEY.right, KEY.right);
      expect(stalePage).toContain(stale.slice(0, 8));
      expect(stalePage).not.toContain(divergent.slice(0, 8));
      for (const line of frame().split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it("lists six columns, the amount with its currency in one right-aligned cell, as the CLI's listings do", async () => {
    const { view, frame } = await open();
    try {
      const lines = frame().split('\n');
      const header = lines.findIndex((l) => /\btxn_time\b/.test(l));
      expect(lines[header]!.trim().split(/\s+/)).toEqual(['txn_time', 'trace_id', 'agent_id', 'action', 'asset', 'notional']);
      const row = lines.find((l) => l.includes(divergent.slice(0, 8)))!;
      expect(row).toMatch(/ \d+(\.\d+)? USD$/);
      // Right-aligned: the amount's cell ends where its header ends.
      expect(row.trimEnd().length).toBe(lines[header]!.trimEnd().length);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('pages through a tab with keyset pages sized to the terminal, and back', async () => {
    // 12 rows of chrome-free room: a 14-line terminal leaves 7 rows per page.
    const { view, press } = await open(14);
    try {
      const first = await press(KEY.right, KEY.right);
      const rows = (f: string) => mismatched.filter((id) => f.includes(id.slice(0, 8)));
      expect(rows(first)).toEqual(mismatched.slice(0, 7));
      expect(first).toContain('page 1, more: n');
      const second = await press('n');
      expect(rows(second)).toEqual(mismatched.slice(7));
      expect(second).toMatch(/page 2, back: p/);
      expect(rows(await press('p'))).toEqual(mismatched.slice(0, 7));
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('Enter opens the selected trace whole, v verifies it, Esc goes back', async () => {
    const { view, press, tap } = await open();
    try {
      const detail = await press(KEY.enter);
      expect(detail).toContain(`trace ${divergent}`);
      expect(detail).toContain('"execution": {');
      expect(detail).toMatch(/lines 1-20 of \d+/);
      // Space pages down to the end of the document, where its trace_id is (members in JCS order).
      expect(await tap(' ', ' ', ' ', ' ')).toContain(`"trace_id": "${divergent}"`);
      const verified = await press('v');
      expect(verified).toMatch(/✓ reasoning_hash/);
      expect(verified).toContain('the trace is valid');
      // No sequencer has run here: the view says the trace is not yet in the log.
      expect(verified).toContain('· log: not yet in the transparency log');
      // Once sequenced, v proves its inclusion under a signed head (the log's own key, read from this store).
      await sequenceOnce(h.store.sql, await logKeyLoader(h.store.sql, h.config)(), Date.now());
      const logged = await press('v');
      expect(logged).toMatch(/✓ log inclusion: leaf \d+ is in the tree of \d+ leaves/);
      expect(logged).toMatch(/✓ log final_proof_inclusion: leaf \d+/);
      expect(logged).toMatch(/in the transparency log: head of \d+ signed, the log's own key/);
      const back = await press(KEY.escape);
      expect(back).toContain('DIVERGENT');
      expect(back).not.toContain('"trace_id"');
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('an open trace shows its served document whole at 80 columns: every hash and id in full, a long line wrapped', async () => {
    const document = await storeSource(h.store.sql, null).trace(divergent);
    const hashes = [...new Set(JSON.stringify(document).match(/[0-9a-f]{64}/g))];
    expect(hashes.length).toBeGreaterThan(0);
    const { view, press, tap } = await open();
    try {
      let frame = await press(KEY.enter);
      const seen: string[] = [];
      for (let page = 0; page < 20; page++) {
        seen.push(...frame.split('\n').slice(1, -1));
        const [, last, total] = /lines \d+-(\d+) of (\d+)/.exec(frame) ?? [];
        if (last === total) break;
        frame = await tap(' ');
      }
      for (const line of seen) {
        expect(stringWidth(line), line).toBeLessThanOrEqual(80);
        expect(line).not.toContain('…');
      }
      const shown = seen.join('\n');
      for (const hash of hashes) expect(shown).toContain(hash);
      expect(shown).toContain(`"trace_id": "${divergent}"`);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('v shows every check whole at 80 columns: a long one wraps under its text instead of being cut off', async () => {
    await sequenceOnce(h.store.sql, await logKeyLoader(h.store.sql, h.config)(), Date.now());
    const source = storeSource(h.store.sql, null, { log: { config: h.config, publicKey: null } });
    const { view, press } = await open();
    try {
      await press(KEY.enter);
      const verified = await press('v');
      for (const line of verified.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
      // Continuation lines hang two columns in: joined back, each check reads whole.
      const joined = verified.replace(/\n {2}(?=\S)/g, ' ');
      const checks = (await source.verify(divergent))!.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}: ${c.detail}`);
      const log = await source.inLog(divergent);
      if ('unavailable' in log) throw new Error(`not in the log: ${log.unavailable}`);
      const proofs = log.check.checks.filter((c) => c.status === 'pass' && /inclusion$/.test(c.check)).map((c) => `✓ log ${c.check}: ${c.detail}`);
      expect(proofs.some((line) => stringWidth(line) > 80)).toBe(true);
      for (const line of [...checks, ...proofs]) expect(joined).toContain(line);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('/ filters by agent id prefix or asset; an empty filter shows all again', async () => {
    const { view, press } = await open();
    try {
      await press(KEY.right, KEY.right);
      const byAsset = await press('/', 'msft', KEY.enter);
      expect(byAsset).toContain('filter: msft');
      expect(mismatched.filter((id) => byAsset.includes(id.slice(0, 8)))).toEqual([mismatched[6]]);
      const byAgent = await press('/', ...Array(4).fill('\u007f'), otherAgent.slice(0, 6), KEY.enter);
      expect(mismatched.filter((id) => byAgent.includes(id.slice(0, 8)))).toEqual([mismatched[6]]);
      // LIKE's wildcards are matched literally: '%' is no asset and no agent id.
      expect(await press('/', ...Array(6).fill('\u007f'), '%', KEY.enter)).toContain('nothing in MISMATCH for this filter');
      const all = await press('/', '\u007f', KEY.enter);
      expect(mismatched.filter((id) => all.includes(id.slice(0, 8)))).toHaveLength(12);
    } finally {
      view.unmount();
    }
  }, 30_000);
});

describe('keys in a burst', () => {
  // A terminal under load, a paste or a key held down sends several keys in one write: each must do what it
  // does typed alone. Before the view split such writes, "\x7f\x7f…" went into the filter as invisible
  // characters (a false "nothing … for this filter") and "    " paged once.
  it('a filter typed, erased and applied in single writes acts as typed slowly, and an active filter stays in view', async () => {
    const { view, frame } = await open();
    const burst = async (keys: string): Promise<string> => {
      view.stdin.write(keys);
      return idle(frame);
    };
    try {
      await burst(`${KEY.right}${KEY.right}`);
      const byAsset = await burst('/msft\r');
      expect(mismatched.filter((id) => byAsset.includes(id.slice(0, 8)))).toEqual([mismatched[6]]);
      const cleared = await burst(`/${'\x7f'.repeat(8)}\r`);
      expect(cleared).not.toContain('for this filter');
      expect(mismatched.filter((id) => cleared.includes(id.slice(0, 8)))).toHaveLength(12);
      // On the tab whose description fills the line, an active filter is still on screen at 80 columns.
      const divergentTab = await burst(`${KEY.left}${KEY.left}/aapl\r`);
      expect(divergentTab.split('\n')[1]).toContain('filter: aapl');
      expect(divergentTab).toContain(divergent.slice(0, 8));
      for (const line of divergentTab.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('a tab switch and Enter in one write open a trace of the tab switched to, not of the tab left', async () => {
    const { view, press, frame } = await open();
    try {
      // ← from DIVERGENT wraps to STALE PENDING; → from there comes back to DIVERGENT.
      expect(await press(KEY.left)).toContain(stale.slice(0, 8));
      view.stdin.write(`${KEY.right}${KEY.enter}`);
      const opened = await frameWhen(frame, (f) => /^trace /.test(f));
      expect(opened.split('\n')[0]).toBe(`trace ${divergent}`);
      await press(KEY.escape);
      // Through a tab with nothing in it (EXPIRED) to MISMATCH: Enter opens MISMATCH's first row, the newest.
      view.stdin.write(`${KEY.right}${KEY.right}${KEY.enter}`);
      expect((await frameWhen(frame, (f) => /^trace /.test(f))).split('\n')[0]).toBe(`trace ${mismatched[0]}`);
    } finally {
      view.unmount();
    }
  }, 30_000);

  it('four spaces in one write page an open trace four times', async () => {
    const { view, press, frame } = await open();
    try {
      expect(await press(KEY.enter)).toMatch(/lines 1-20 of \d+/);
      view.stdin.write('    ');
      expect(await frameWhen(frame, (f) => f.includes(`"trace_id": "${divergent}"`))).toContain(`"trace_id": "${divergent}"`);
    } finally {
      view.unmount();
    }
  }, 30_000);
});

describe('tradeseal engine orphans in a real terminal (tmux, 80 x 24)', () => {
  it('opens the view, follows the keys, and quits on q', async () => {
    const home = tempHome();
    const socket = `tradeseal-test-${process.pid}`;
    const env = cliEnv(home, h.store.url);
    const script = path.join(home, 'orphans.sh');
    const exports = Object.entries(env)
      .filter(([k, v]) => v !== undefined && /^(PATH|HOME|DATABASE_URL|TRADESEAL_[A-Z_]+|LANG|LC_ALL)$/.test(k))
      .map(([k, v]) => `export ${k}='${String(v).replace(/'/g, `'\\''`)}'`)
      .join('\n');
    // The tmux server inherits this process's environment, CI=true included when CI runs the suite: the view
    // runs without it, then once more with it, where it must fall back to the plain listing.
    writeFileSync(
      script,
      [
        exports,
        'export TERM=xterm-256color',
        'unset CI CONTINUOUS_INTEGRATION',
        `cd '${REPO_ROOT}'`,
        `'${process.execPath}' bin/dev.js engine orphans`,
        'echo "exited $?"',
        'read _',
        'clear',
        `CI=true '${process.execPath}' bin/dev.js engine orphans --limit 3`,
        'echo "ci exited $?"',
        'sleep 30',
        '',
      ].join('\n'),
    );
    const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const screen = (): string => tmux('capture-pane', '-p', '-t', 'view');
    const until = async (what: string, want: (s: string) => boolean): Promise<string> => {
      for (let i = 0; i < 150; i++) {
        const s = screen();
        if (want(s)) return s;
        await settle(200);
      }
      throw new Error(`the terminal never showed ${what}:\n${screen()}`);
    };
    tmux('new-session', '-d', '-s', 'view', '-x', '80', '-y', '24', `sh ${script}`);
    try {
      const first = await until('the first tab', (s) => s.includes(divergent.slice(0, 8)));
      expect(first.split('\n')[0]).toContain(' DIVERGENT  EXPIRED  MISMATCH');
      for (const line of first.split('\n')) expect(stringWidth(line)).toBeLessThanOrEqual(80);
      // Two keys in one write, as a fast typist or key repeat sends them: each counts.
      tmux('send-keys', '-t', 'view', 'Right', 'Right');
      await until('the MISMATCH tab', (s) => mismatched.slice(0, 5).every((id) => s.includes(id.slice(0, 8))));
      tmux('send-keys', '-t', 'view', 'Enter');
      await until('the trace opened', (s) => s.includes(`trace ${mismatched[0]}`));
      tmux('send-keys', '-t', 'view', 'q');
      await until('the command exiting 0', (s) => /^exited 0$/m.test(s));
      tmux('send-keys', '-t', 'view', 'Enter');
      const plain = await until('the plain listing under CI', (s) => s.includes('ci exited 0'));
      expect(plain).toMatch(/^txn_time +trace_id +agent_id +status/m);
      expect(plain).toContain(divergent.slice(0, 8));
      expect(plain).not.toContain(' DIVERGENT  EXPIRED  MISMATCH');
    } finally {
      tmux('kill-server');
    }
  }, 120_000);
});
