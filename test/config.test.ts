import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, SETTINGS } from '../src/config/index.js';
import type { Setting } from '../src/config/rows.js';

const HOME = path.resolve('/home/tester');

/** loadConfig with an explicit environment and home; never the process's own. */
type Flags = { dataDir?: string; at?: string; host?: string; port?: string };

const load = (env: Record<string, string> = {}, flags?: Flags) =>
  loadConfig({ env, home: HOME, ...(flags ? { flags } : {}) });

/** The ConfigError that loading throws; fails the test if it does not throw one. */
const configError = (env: Record<string, string>, flags?: Flags): ConfigError => {
  try {
    load(env, flags);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected loadConfig to refuse ${JSON.stringify(env)}`);
};

describe('loadConfig', () => {
  it("defaults to the values of the guide's Settings table", () => {
    const config = load();
    assert.equal(config.decayModel, 'power_law');
    assert.equal(config.halfLifeDays, 3);
    assert.equal(config.beta, 0.6);
    assert.equal(config.forgetThreshold, 0.05);
    assert.equal(config.promoteThreshold, 0.65);
    assert.equal(config.promoteMinUses, 2);
    assert.equal(config.promoteUseCount, 5);
    assert.equal(config.promoteWindowDays, 14);
    assert.equal(config.dangerZoneMin, 0.15);
    assert.equal(config.dangerZoneMax, 0.35);
    assert.equal(config.reviewBlendRatio, 0.3);
    assert.equal(config.searchDecayWeight, 0.3);
    assert.equal(config.autoReinforce, true);
    assert.equal(config.now, undefined);
  });

  it('takes every setting from the environment', () => {
    const config = load({
      MNEMO_DECAY_MODEL: 'two_component',
      MNEMO_HALFLIFE_DAYS: '7.5',
      MNEMO_DECAY_BETA: '0.4',
      MNEMO_FORGET_THRESHOLD: '0.1',
      MNEMO_PROMOTE_THRESHOLD: '0.8',
      MNEMO_PROMOTE_MIN_USES: '3',
      MNEMO_PROMOTE_USE_COUNT: '8',
      MNEMO_PROMOTE_WINDOW_DAYS: '30',
      MNEMO_DANGER_ZONE_MIN: '0.1',
      MNEMO_DANGER_ZONE_MAX: '0.4',
      MNEMO_REVIEW_BLEND_RATIO: '0.2',
      MNEMO_SEARCH_DECAY_WEIGHT: '0.5',
      MNEMO_AUTO_REINFORCE: 'false',
    });
    assert.equal(config.decayModel, 'two_component');
    assert.equal(config.halfLifeDays, 7.5);
    assert.equal(config.beta, 0.4);
    assert.equal(config.forgetThreshold, 0.1);
    assert.equal(config.promoteThreshold, 0.8);
    assert.equal(config.promoteMinUses, 3);
    assert.equal(config.promoteUseCount, 8);
    assert.equal(config.promoteWindowDays, 30);
    assert.equal(config.dangerZoneMin, 0.1);
    assert.equal(config.dangerZoneMax, 0.4);
    assert.equal(config.reviewBlendRatio, 0.2);
    assert.equal(config.searchDecayWeight, 0.5);
    assert.equal(config.autoReinforce, false);
  });

  it('accepts each decay model', () => {
    for (const model of ['power_law', 'exponential', 'two_component'] as const) {
      assert.equal(load({ MNEMO_DECAY_MODEL: model }).decayModel, model);
    }
  });

  it('treats a blank variable as unset', () => {
    assert.equal(load({ MNEMO_HALFLIFE_DAYS: '  ' }).halfLifeDays, 3);
    assert.equal(load({ MNEMO_DECAY_MODEL: '' }).decayModel, 'power_law');
  });

  describe('data dir', () => {
    it('is ~/.local/share/mnemo without XDG_DATA_HOME', () => {
      assert.equal(load().dataDir, path.join(HOME, '.local', 'share', 'mnemo'));
    });

    it('is $XDG_DATA_HOME/mnemo when XDG_DATA_HOME is set', () => {
      const xdg = path.resolve('/xdg/data');
      assert.equal(load({ XDG_DATA_HOME: xdg }).dataDir, path.join(xdg, 'mnemo'));
    });

    it('MNEMO_DATA_DIR wins over XDG_DATA_HOME', () => {
      const dir = path.resolve('/srv/mnemo-env');
      assert.equal(load({ XDG_DATA_HOME: path.resolve('/xdg'), MNEMO_DATA_DIR: dir }).dataDir, dir);
    });

    it('--data-dir wins over MNEMO_DATA_DIR', () => {
      const flag = path.resolve('/srv/mnemo-flag');
      const env = { XDG_DATA_HOME: path.resolve('/xdg'), MNEMO_DATA_DIR: path.resolve('/env') };
      assert.equal(load(env, { dataDir: flag }).dataDir, flag);
    });
  });

  describe('clock', () => {
    it('reads MNEMO_NOW as epoch seconds', () => {
      assert.equal(load({ MNEMO_NOW: '1796115600' }).now, 1_796_115_600);
    });

    it('reads MNEMO_NOW as an ISO date', () => {
      assert.equal(load({ MNEMO_NOW: '2026-12-01T09:00:00Z' }).now, 1_796_115_600);
      assert.equal(load({ MNEMO_NOW: '2026-12-01' }).now, 1_796_083_200);
    });

    it('--at wins over MNEMO_NOW', () => {
      const config = load({ MNEMO_NOW: '1796115600' }, { at: '2026-12-04T00:00:00Z' });
      assert.equal(config.now, 1_796_342_400);
    });

    it('refuses a bad MNEMO_NOW, naming it', () => {
      const error = configError({ MNEMO_NOW: 'next friday-ish' });
      assert.match(error.message, /MNEMO_NOW/);
      assert.match(error.message, /next friday-ish/);
    });

    it('refuses a blank --data-dir, naming the flag, rather than using the working folder', () => {
      // `--data-dir "$DIR"` with DIR unset must not put the memories in the current folder.
      for (const blank of ['', '  ']) {
        const error = configError({}, { dataDir: blank });
        assert.match(error.message, /^--data-dir must not be empty/);
        assert.doesNotMatch(error.message, /MNEMO_DATA_DIR/);
      }
    });

    it('a bad --port or --host is named as the flag it came from', () => {
      for (const port of ['abc', '99999']) {
        const error = configError({}, { port });
        assert.match(error.message, /^--port must be/);
        assert.doesNotMatch(error.message, /MNEMO_HTTP_PORT/);
      }
      assert.match(configError({}, { host: '' }).message, /^--host must not be empty/);
      assert.match(configError({ MNEMO_HTTP_PORT: 'abc' }).message, /^MNEMO_HTTP_PORT must be/);
    });

    it('refuses a bad --at, naming the flag', () => {
      const error = configError({ MNEMO_NOW: '1796115600' }, { at: 'soon' });
      assert.match(error.message, /--at/);
      assert.doesNotMatch(error.message, /MNEMO_NOW/);
    });
  });

  describe('errors', () => {
    it('refuses an unknown decay model, naming the variable and the valid models', () => {
      const error = configError({ MNEMO_DECAY_MODEL: 'linear' });
      assert.equal(error.name, 'ConfigError');
      assert.match(error.message, /MNEMO_DECAY_MODEL/);
      for (const model of ['power_law', 'exponential', 'two_component']) {
        assert.ok(error.message.includes(model), `message should list ${model}: ${error.message}`);
      }
    });

    it('refuses a non-numeric half-life, naming MNEMO_HALFLIFE_DAYS', () => {
      assert.match(configError({ MNEMO_HALFLIFE_DAYS: 'three' }).message, /MNEMO_HALFLIFE_DAYS/);
      assert.match(configError({ MNEMO_HALFLIFE_DAYS: '0' }).message, /MNEMO_HALFLIFE_DAYS/);
    });

    it('refuses a danger zone whose min is not below its max', () => {
      for (const [min, max] of [
        ['0.4', '0.3'],
        ['0.3', '0.3'],
      ] as const) {
        const error = configError({ MNEMO_DANGER_ZONE_MIN: min, MNEMO_DANGER_ZONE_MAX: max });
        assert.match(error.message, /MNEMO_DANGER_ZONE_MIN/);
        assert.match(error.message, /MNEMO_DANGER_ZONE_MAX/);
      }
    });

    it('refuses a blank MNEMO_AUTH_TOKEN rather than serving without auth', () => {
      for (const blank of ['', ' '.repeat(16), '\t \n']) {
        const message = configError({ MNEMO_AUTH_TOKEN: blank }).message;
        assert.match(
          message,
          /^MNEMO_AUTH_TOKEN is set but blank .*without auth: set it to 16 or more random characters \(e\.g\. openssl rand -hex 32\), or unset it$/,
        );
      }
      assert.equal(load().authToken, undefined, 'unset: no token');
      assert.equal(
        load({ MNEMO_AUTH_TOKEN: ' 0123456789abcdef\n' }).authToken,
        '0123456789abcdef',
        'trimmed',
      );
      assert.match(configError({ MNEMO_AUTH_TOKEN: ' short ' }).message, /too short/);
    });

    it('refuses a bad boolean, naming MNEMO_AUTO_REINFORCE', () => {
      assert.match(configError({ MNEMO_AUTO_REINFORCE: 'maybe' }).message, /MNEMO_AUTO_REINFORCE/);
    });
  });

  it('names the variable for every bad whole number or range, and reads 20260301 as a date', () => {
    assert.match(
      configError({ MNEMO_PROMOTE_USE_COUNT: '0' }).message,
      /^MNEMO_PROMOTE_USE_COUNT must be a whole number of 1 or more/,
    );
    assert.match(
      configError({ MNEMO_PROMOTE_MIN_USES: '1.5' }).message,
      /^MNEMO_PROMOTE_MIN_USES must be a whole number of 1 or more/,
    );
    assert.match(configError({ MNEMO_PROMOTE_MIN_USES: '0' }).message, /never used never promotes/);
    assert.match(
      configError({ MNEMO_PROMOTE_WINDOW_DAYS: '-1' }).message,
      /^MNEMO_PROMOTE_WINDOW_DAYS must be 0 or more days/,
    );
    assert.equal(load({}, { at: '20260301' }).now, Date.UTC(2026, 2, 1) / 1000);
  });
});

describe("the guide's Settings table (docs/settings.md), the contract", () => {
  const page = fs.readFileSync(new URL('../docs/settings.md', import.meta.url), 'utf8');
  const rows = new Map<string, { flag: string | undefined; default: string; meaning: string }>();
  for (const line of page.split('\n')) {
    const cells = /^\| `(MNEMO_\w+)`(?: \(`(--[\w-]+)`\))? \| (.*) \| (.*) \|$/.exec(line);
    if (cells) {
      rows.set(cells[1] as string, {
        flag: cells[2],
        default: cells[3] as string,
        meaning: cells[4] as string,
      });
    }
  }
  const table = Object.values(SETTINGS) as Setting[];

  it('lists exactly the variables of the settings table, each once', () => {
    assert.deepEqual([...rows.keys()].sort(), table.map((s) => s.variable).sort());
    assert.equal(new Set(table.map((s) => s.variable)).size, table.length);
  });

  it('with the same flag, meaning and (where it is a plain value) default', () => {
    for (const setting of table) {
      const row = rows.get(setting.variable);
      assert.ok(row, setting.variable);
      assert.equal(row.flag, setting.flag, `${setting.variable}: flag`);
      assert.equal(row.meaning, setting.meaning, `${setting.variable}: meaning`);
      if (['string', 'number', 'boolean'].includes(typeof setting.default)) {
        assert.equal(row.default, `\`${String(setting.default)}\``, `${setting.variable}: default`);
      }
    }
  });

  it('every default loads as the guide says', () => {
    const config = loadConfig({ env: {}, home: HOME }) as Record<string, unknown>;
    for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting][]) {
      if (['string', 'number', 'boolean'].includes(typeof setting.default)) {
        assert.equal(config[key], setting.default, key);
      }
    }
  });
});
