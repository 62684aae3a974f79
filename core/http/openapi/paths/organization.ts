import { errorResponses, jsonBody, jsonBodyErrors, ok, secretKeyErrors, serverErrors } from '../helpers.ts';
import type { PathFragment } from '../types.ts';

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
      requestBody: jsonBody('UpdateOrganizationRequest', { renderRetentionDays: 30 }),
      responses: {
        '200': ok('The organization as it is now.', 'Organization'),
        ...errorResponses(serverErrors, secretKeyErrors, jsonBodyErrors),
      },
    },
  },
};
