/**
 * `tradeseal config set|show|remove`: named profiles of remote servers, kept owner-only, every value checked
 * with its setting's rule, secrets never printed whole, and a bad hand edit named by file and profile.
 * (Commands using a profile against real servers: test/cli/signals-remote.test.ts, test/cli/log.test.ts.)
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';

const home = tempHome();
const file = path.join(home, 'xdg', 'tradeseal', 'profiles.json');
// The default file: under XDG_CONFIG_HOME.
const env = cliEnv(home, undefined, { XDG_CONFIG_HOME: path.join(home, 'xdg'), TRADESEAL_PROFILES_FILE: undefined, TRADESEAL_PROFILE: undefined });
const TOKEN = `tse_${'A'.repeat(43)}`;
const KEY = `rsk_${'b'.repeat(43)}`;

describe('config profiles', () => {
  it('set writes an owner-only file under XDG_CONFIG_HOME, merges later values, --unset removes one; show masks the secrets', async () => {
    const first = await runCli(['config', 'set', '--profile', 'prod', '--url', 'https://engine.example:8080/', '--token', TOKEN, '--json'], env);
    expect(first.code, describeRun(first)).toBe(0);
    expect(first.json()).toEqual({ profile: 'prod', file, values: { url: 'https://engine.example:8080', token: 'tse_AAAA…' } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const second = await runCli(['config', 'set', '--profile', 'prod', '--signals-url', 'https://signals.example', '--key', KEY], env);
    expect(second.code, describeRun(second)).toBe(0);
    expect(second.stdout).not.toContain(KEY);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      profiles: { prod: { url: 'https://engine.example:8080', token: TOKEN, signals_url: 'https://signals.example', key: KEY } },
    });
    await runCli(['config', 'set', '--profile', 'staging', '--url', 'http://127.0.0.1:9'], env);
    const unset = await runCli(['config', 'set', '--profile', 'prod', '--unset', 'key'], env);
    expect(unset.code, describeRun(unset)).toBe(0);
    const shown = await runCli(['config', 'show'], { ...env, TRADESEAL_PROFILE: 'prod' });
    expect(shown.code, describeRun(shown)).toBe(0);
    expect(shown.stdout).toMatch(/^prod \(TRADESEAL_PROFILE\)\s+https:\/\/engine\.example:8080\s+tse_AAAA…\s+https:\/\/signals\.example\s+-$/m);
    expect(shown.stdout).toMatch(/^staging\s+http:\/\/127\.0\.0\.1:9\s+-\s+-\s+-$/m);
    expect(shown.stdout).not.toContain(TOKEN);
    expect((await runCli(['config', 'show', '--profile', 'nope'], env)).code).toBe(3);
  }, 60_000);

  it("refuses a bad value with its setting's rule, a bad name, and nothing to set (exit 2), writing nothing", async () => {
    const before = readFileSync(file, 'utf8');
    const badUrl = await runCli(['config', 'set', '--profile', 'prod', '--url', 'ftp://x'], env);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/--url: url is not an http\(s\) URL/);
    const badToken = await runCli(['config', 'set', '--profile', 'prod', '--token', 'tse_short'], env);
    expect(badToken.code).toBe(2);
    expect(badToken.stderr).toContain('ENGINE_TOKEN');
    expect(badToken.stderr).not.toContain('tse_short');
    expect((await runCli(['config', 'set', '--profile', 'Prod!', '--url', 'http://x'], env)).code).toBe(2);
    expect((await runCli(['config', 'set', '--profile', 'prod'], env)).stderr).toMatch(/nothing to set/);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 60_000);

  it('remove asks: without a terminal it needs --yes', async () => {
    const asked = await runCli(['config', 'remove', '--profile', 'staging'], env);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/confirmation_required/);
    const removed = await runCli(['config', 'remove', '--profile', 'staging', '--yes', '--json'], env);
    expect(removed.code, describeRun(removed)).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).profiles)).toEqual(['prod']);
  }, 60_000);

  it('a command naming an unknown profile is exit 2 listing the profiles; a bad hand edit names the file and the profile', async () => {
    const unknown = await runCli(['signals', 'latest', '--profile', 'qa'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no profile "qa" in .*profiles\.json/);
    expect(unknown.stderr).toContain('the profiles are prod');
    const edited = path.join(home, 'edited', 'profiles.json');
    mkdirSync(path.dirname(edited));
    writeFileSync(edited, JSON.stringify({ profiles: { prod: { url: 'https://ok.example', signals_url: 'not a url' } } }));
    const bad = await runCli(['config', 'show'], { ...env, TRADESEAL_PROFILES_FILE: edited });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${edited}, profile "prod": signals_url is not an http(s) URL`);
  }, 60_000);
});
