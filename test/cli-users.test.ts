import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { boot } from '../cli/boot.ts';
import { shutdown } from '../core/lifecycle.ts';
import { silentLogger } from '../core/logger.ts';
import { cli } from './support/cli.ts';

const client = { userAgent: 'test', ipAddress: '127.0.0.1' };
const tokenOf = (url: string) => new URL(url.replace('#/', '')).searchParams.get('token')!;

describe('CLI: dashboard users', () => {
  let dataDir: string;
  let env: Record<string, string>;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'visualizer-cli-users-'));
    env = { VISUALIZER_DATA_DIR: dataDir, PORT: '4321' };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  /** The accounts service on the same data directory, as the server would have it. */
  async function withAccounts<T>(
    work: (accounts: import('../core/services/accounts.ts').AccountService) => Promise<T>,
  ): Promise<T> {
    const { container } = await boot(env, { logger: silentLogger });
    try {
      return await work(container.cradle.accounts);
    } finally {
      await shutdown(container);
    }
  }

  it('orgs create --admin-email invites the first admin; the printed link sets a password once', async () => {
    const result = await cli(
      ['orgs', 'create', '--name', 'Team', '--credits', '0', '--admin-email', 'Owner@Example.com', '--json'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    const created = JSON.parse(result.stdout);
    const invitation = created.adminInvitation;
    assert.equal(invitation.email, 'owner@example.com');
    assert.equal(invitation.role, 'admin');
    assert.equal(invitation.organizationId, created.organizationId);
    assert.match(invitation.userId, /^usr_[0-9A-Za-z]{24}$/);
    assert.match(invitation.url, /^http:\/\/localhost:4321\/dashboard\/#\/accept-invitation\?token=[0-9A-Za-z]{32}$/);
    assert.match(invitation.expiresAt, /Z$/);

    const signedIn = await withAccounts((accounts) =>
      accounts.acceptInvitation({ token: tokenOf(invitation.url), password: 'a long password' }, client),
    );
    assert.equal(signedIn.user.id, invitation.userId);
    assert.equal(signedIn.organization.id, created.organizationId);
    await assert.rejects(
      withAccounts((accounts) =>
        accounts.acceptInvitation({ token: tokenOf(invitation.url), password: 'a long password' }, client),
      ),
      /invalid, has expired or was already used/,
    );

    const text = await cli(
      ['orgs', 'create', '--name', 'Plain', '--credits', '0', '--admin-email', 'first@example.com'],
      env,
    );
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      /^Invitation for first@example\.com \(admin\): http:\/\/localhost:4321\/dashboard\/#\/accept-invitation\?token=\w{32}$/m,
    );
    assert.match(text.stdout, /works once, until \d{4}-/);
  });

  it('users invite prints a one-time link for a viewer or an admin', async () => {
    const { organizationId } = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'Invites', '--credits', '0', '--json'], env)).stdout,
    );
    const viewer = await cli(
      ['users', 'invite', '--org', organizationId, '--email', 'viewer@example.com', '--role', 'viewer'],
      env,
    );
    assert.equal(viewer.code, 0, viewer.stderr);
    const url = /Invitation for viewer@example\.com \(viewer\): (\S+)/.exec(viewer.stdout)?.[1];
    assert.ok(url, viewer.stdout);
    const signedIn = await withAccounts((accounts) =>
      accounts.acceptInvitation({ token: tokenOf(url), password: 'viewer password' }, client),
    );
    assert.equal(signedIn.user.role, 'viewer');

    const admin = JSON.parse(
      (
        await cli(
          ['users', 'invite', '--org', organizationId, '--email', 'admin@example.com', '--role', 'admin', '--json'],
          env,
        )
      ).stdout,
    );
    assert.equal(admin.role, 'admin');
    assert.equal(admin.organizationId, organizationId);
  });

  it('refuses bad arguments, unknown organizations and taken addresses, creating nothing', async () => {
    const { organizationId } = JSON.parse(
      (
        await cli(
          ['orgs', 'create', '--name', 'Taken', '--credits', '0', '--admin-email', 'taken@example.com', '--json'],
          env,
        )
      ).stdout,
    );
    const other = JSON.parse(
      (await cli(['orgs', 'create', '--name', 'Other', '--credits', '0', '--json'], env)).stdout,
    ).organizationId;
    const before = (await cli(['orgs', 'list', '--json'], env)).stdout;
    const cases: Array<[string[], RegExp, number]> = [
      [['users', 'invite', '--org', organizationId, '--email', 'x@example.com'], /--role is required/, 2],
      [
        ['users', 'invite', '--org', organizationId, '--email', 'x@example.com', '--role', 'owner'],
        /--role must be one of admin, viewer/,
        2,
      ],
      [['users', 'invite', '--org', organizationId, '--role', 'viewer'], /--email is required/, 2],
      [
        ['users', 'invite', '--org', organizationId, '--email', 'nope', '--role', 'viewer'],
        /email must be an email address/,
        1,
      ],
      [
        ['users', 'invite', '--org', 'org_missing', '--email', 'x@example.com', '--role', 'viewer'],
        /No such organization: 'org_missing'/,
        1,
      ],
      // Invited to one organization, the address cannot join another.
      [
        ['users', 'invite', '--org', other, '--email', 'TAKEN@example.com', '--role', 'viewer'],
        /already belongs to a user/,
        1,
      ],
      [
        ['orgs', 'create', '--name', 'Again', '--credits', '0', '--admin-email', 'taken@example.com'],
        /taken@example\.com already belongs to a dashboard user/,
        2,
      ],
      [
        ['orgs', 'create', '--name', 'Bad', '--credits', '0', '--admin-email', 'not-an-address'],
        /--admin-email must be an email address/,
        2,
      ],
    ];
    for (const [args, message, code] of cases) {
      const result = await cli(args, env);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
    }
    assert.equal((await cli(['orgs', 'list', '--json'], env)).stdout, before, 'no organization was created');
  });
});
