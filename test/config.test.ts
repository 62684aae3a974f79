import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../config/load.ts';

describe('configuration', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    const target = path.join(dir, name);
    writeFileSync(target, content);
    return target;
  };

  it('has defaults that serve SQLite under ./data on port 3000', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('data'));
    assert.equal(config.publicUrl, 'http://localhost:3000');
    assert.deepEqual(config.plugins, {
      persistence: 'sqlite',
      clock: 'system',
      ids: 'random',
      limits: 'memory',
      cdn: 'local',
      renderer: 'mock',
      credentials: 'c2pa',
      queue: 'db',
      transport: 'http',
      scheduler: 'bree',
    });
    assert.deepEqual(config.webhooks.retrySchedule, [0, 5_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('maps every environment variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u:p@db:5432/viz',
      VISUALIZER_DATA_DIR: '/srv/viz',
      VISUALIZER_PUBLIC_URL: 'https://viz.example.com/',
      VISUALIZER_OUTBOUND_ALLOW: 'localhost, 10.0.0.0/8',
      VISUALIZER_WEBHOOK_RETRY_SCHEDULE: '0,10,20',
    });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/viz');
    assert.equal(config.plugins.persistence, 'postgres', 'a postgres:// DATABASE_URL selects Postgres');
    assert.equal(config.dataDir, '/srv/viz');
    assert.equal(config.publicUrl, 'https://viz.example.com');
    assert.deepEqual(config.outbound.allow, ['localhost', '10.0.0.0/8']);
    assert.deepEqual(config.webhooks.retrySchedule, [0, 10, 20]);
  });

  it('reads a JSON file named by VISUALIZER_CONFIG, with the environment on top', () => {
    const target = file(
      'config.json',
      JSON.stringify({ port: 4000, host: '::1', pluginOptions: { 'store-sqlite': { file: 'x.db' } } }),
    );
    const config = loadConfig({ VISUALIZER_CONFIG: target, PORT: '5000' });
    assert.equal(config.port, 5000);
    assert.equal(config.host, '::1');
    assert.deepEqual(config.pluginOptions, { 'store-sqlite': { file: 'x.db' } });
  });

  it('drops trailing slashes from publicUrl wherever it is set, as URLs are built on it with "/"', () => {
    const target = file('slash.json', JSON.stringify({ publicUrl: 'https://viz.example.com/images//' }));
    assert.equal(loadConfig({ VISUALIZER_CONFIG: target }).publicUrl, 'https://viz.example.com/images');
    assert.equal(loadConfig({}, { publicUrl: 'http://localhost:4999/' }).publicUrl, 'http://localhost:4999');
    assert.equal(
      loadConfig({ VISUALIZER_PUBLIC_URL: 'https://viz.example.com///' }).publicUrl,
      'https://viz.example.com',
    );
  });

  it('stops with a message naming each invalid field and where it came from', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty' }),
      (error: Error) => error instanceof ConfigError && /port \(PORT\)/.test(error.message),
    );
    assert.throws(() => loadConfig({ PORT: '70000' }), /port \(PORT\)/);
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://x' }),
      /databaseUrl \(DATABASE_URL\): must start with postgres/,
    );
    assert.throws(() => loadConfig({ VISUALIZER_PUBLIC_URL: 'not a url' }), /publicUrl \(VISUALIZER_PUBLIC_URL\)/);
    assert.throws(
      () => loadConfig({ VISUALIZER_WEBHOOK_RETRY_SCHEDULE: '0,soon' }),
      /webhooks\.retrySchedule\.1 \(config\)|webhooks\.retrySchedule/,
    );
    assert.throws(
      () => loadConfig({ VISUALIZER_OUTBOUND_ALLOW: 'localhost,10.0.0.0/33' }),
      /outbound\.allow\.1 .*valid CIDR/,
    );
    assert.throws(
      () => loadConfig({ VISUALIZER_OUTBOUND_ALLOW: 'localhost:99999' }),
      /outbound\.allow\.0 .*invalid port "99999"/,
    );
    assert.throws(
      () => loadConfig({ VISUALIZER_OUTBOUND_ALLOW: '[::1]8443' }),
      /outbound\.allow\.0 .*\[IPv6 address or CIDR\]/,
    );
    assert.deepEqual(
      loadConfig({ VISUALIZER_OUTBOUND_ALLOW: 'hooks.test:8443,[::1]:8443,127.0.0.0/8:9000' }).outbound.allow,
      ['hooks.test:8443', '[::1]:8443', '127.0.0.0/8:9000'],
    );
    const typo = file('typo.json', JSON.stringify({ prot: 1 }));
    assert.throws(() => loadConfig({ VISUALIZER_CONFIG: typo }), /prot/);
  });

  it('explains an unreadable or malformed config file', () => {
    assert.throws(
      () => loadConfig({ VISUALIZER_CONFIG: path.join(dir, 'missing.json') }),
      /Cannot read config file .*missing\.json/,
    );
    assert.throws(() => loadConfig({ VISUALIZER_CONFIG: file('bad.json', '{ nope') }), /not valid JSON/);
    assert.throws(() => loadConfig({ VISUALIZER_CONFIG: file('list.json', '[]') }), /must hold a JSON object/);
  });
});
