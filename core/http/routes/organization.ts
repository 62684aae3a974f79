import type { H3 } from 'h3';
import * as v from 'valibot';
import type { Organization } from '../../domain/organization.ts';
import { maxRenderRetentionDays } from '../../services/tenants.ts';
import { readValidJson } from '../body.ts';
import { requireKey, services } from '../context.ts';
import { isoTime } from '../format.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { errorResponses, jsonBody, jsonBodyErrors, ok, secretKeyErrors, serverErrors } from '../openapi/helpers.ts';
import type { PathFragment } from '../openapi/types.ts';

export const updateOrganizationBody = v.strictObject({
  renderRetentionDays: v.optional(
    v.pipe(
      v.nullable(
        v.pipe(
          v.number('must be a whole number of days or null'),
          v.integer('must be a whole number of days'),
          v.minValue(1, 'must be at least 1'),
          v.maxValue(maxRenderRetentionDays, `must be at most ${maxRenderRetentionDays}; null keeps renders for ever`),
        ),
      ),
      v.description(
        'Days to keep each render (original, variants, uploaded photo) after it was made; null keeps them for ever.',
      ),
    ),
  ),
});

export const organizationResource = (organization: Organization) => ({
  id: organization.id,
  object: 'organization' as const,
  name: organization.name,
  renderRetentionDays: organization.renderRetentionDays,
  createdAt: isoTime(organization.createdAt),
});

const tags = ['Organization'];

export const organizationPaths: PathFragment = {
  '/v1/organization': {
    get: {
      operationId: 'getOrganization',
      summary: 'Get the organization',
      description: "The caller's organization and its settings.",
      tags,
      responses: { '200': ok('The organization.', 'Organization'), ...errorResponses(serverErrors, secretKeyErrors) },
    },
    patch: {
      operationId: 'updateOrganization',
      summary: "Update the organization's settings",
      description:
        'Sets `renderRetentionDays`: each render (original, variants, uploaded photo) is deleted that many days after it was made, by the retention sweep (hourly by default), and GET then answers 410 `generation_expired`; null keeps renders for ever (the default). A shorter period applies to renders already made. With the session cookie, admins only.',
      tags,
      requestBody: jsonBody('UpdateOrganizationRequest', updateOrganizationBody, { renderRetentionDays: 30 }),
      responses: {
        '200': ok('The organization as it is now.', 'Organization'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors),
      },
    },
  },
};

/** The caller's organization and its settings (render retention). A viewer's session may read, not change. */
export function organizationRoutes(app: H3, limits: RouteLimits) {
  app.get('/v1/organization', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    return organizationResource(await services(event).tenants.getOrganization(caller.organizationId));
  });

  app.patch('/v1/organization', async (event) => {
    const caller = await requireKey(event, 'secret');
    await limits.read.take(caller.id);
    const body = await readValidJson(event, updateOrganizationBody);
    const { tenants } = services(event);
    const organization =
      body.renderRetentionDays === undefined
        ? await tenants.getOrganization(caller.organizationId)
        : await tenants.setRenderRetention(caller.organizationId, body.renderRetentionDays);
    return organizationResource(organization);
  });
}
