import type { ApiKeyKind } from '../../core/domain/api-keys.ts';
import { jsonOption, requireText, UsageError, type Command } from '../command.ts';
import { printRecords } from '../output.ts';
import { iso, withServices } from './tenant-commands.ts';

const kinds: ApiKeyKind[] = ['secret', 'conversion'];

export const keysCreate: Command = {
  name: 'keys create',
  usage: 'keys create --org ORG_ID [--kind secret|conversion] [--name NAME] [--json]',
  summary: 'Issue a secret API key (visualizer_…, default) or a conversion key (viz_…); shown once.',
  options: {
    org: { type: 'string' },
    kind: { type: 'string', default: 'secret' },
    name: { type: 'string' },
    ...jsonOption,
  },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const kind = values.kind as ApiKeyKind;
    if (!kinds.includes(kind))
      throw new UsageError(`--kind must be one of ${kinds.join(', ')}, not '${String(values.kind)}'.`);
    const name = values.name === undefined ? null : requireText(values, 'name');
    const { key, record } = await withServices(context, ({ tenants }) => tenants.createKey(organizationId, kind, name));
    if (values.json) context.output.out(JSON.stringify({ keyId: record.id, kind, key, organizationId }));
    else context.output.out(`Key ${record.id} (${kind}): ${key}\nThe key is shown only now: store it somewhere safe.`);
    return 0;
  },
};

export const keysList: Command = {
  name: 'keys list',
  usage: 'keys list --org ORG_ID [--json]',
  summary: "List an organization's keys (never the keys themselves).",
  options: { org: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const keys = await withServices(context, ({ tenants }) => tenants.listKeys(organizationId));
    const records = keys.map((key) => ({
      id: key.id,
      kind: key.kind,
      name: key.name,
      prefix: `${key.displayPrefix}…`,
      status: key.revokedAt === null ? 'active' : 'revoked',
      createdAt: iso(key.createdAt),
      lastUsedAt: iso(key.lastUsedAt),
    }));
    printRecords(context.output, Boolean(values.json), records, [
      'id',
      'kind',
      'name',
      'prefix',
      'status',
      'createdAt',
      'lastUsedAt',
    ]);
    return 0;
  },
};

export const keysRevoke: Command = {
  name: 'keys revoke',
  usage: 'keys revoke --org ORG_ID --key KEY_ID [--json]',
  summary: 'Revoke a key; requests with it are refused from then on.',
  options: { org: { type: 'string' }, key: { type: 'string' }, ...jsonOption },
  async run(values, context) {
    const organizationId = requireText(values, 'org');
    const keyId = requireText(values, 'key');
    const key = await withServices(context, ({ tenants }) => tenants.revokeKey(organizationId, keyId));
    if (values.json) context.output.out(JSON.stringify({ keyId: key.id, revokedAt: iso(key.revokedAt) }));
    else context.output.out(`Key ${key.id} revoked at ${iso(key.revokedAt)}`);
    return 0;
  },
};
