import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Cradle } from '../../cradle.ts';
import { creditCost, generationResource, type GenerationRecord } from '../../domain/generation.ts';
import { validate } from '../body.ts';
import { apiKeyIdOf, type Caller } from '../context.ts';
import type { RouteLimits } from '../rate-limit.ts';
import { readListImage } from './list-image.ts';
import { maxWaitSeconds, toolInputSchema, toolSchemas, type ToolArguments, type ToolName } from './tool-schemas.ts';

/** Who calls and with what: one request's caller, the services and the API's rate limits. */
export interface ToolContext {
  caller: Caller;
  services: Cradle;
  limits: RouteLimits;
  /** Aborted when the client cancels the call or goes away: a wait stops early. */
  signal: AbortSignal;
}

/** How often a waiting `create_generation` reads its generation again: a read by primary key. */
const waitPollMs = 250;

const costs = Object.entries(creditCost)
  .map(([size, cost]) => `${size} = ${cost}`)
  .join(', ');

/** The descriptions a model reads to choose a tool and fill its arguments. */
const descriptions: Record<ToolName, string> = {
  create_generation: `Make an AI visualization: 'virtual-try-on' shows a person (the photo in \`image\`) wearing 1 to 3 products; 'room-visualizer' places 1 to 3 products (furniture, decor) in a room photo. \`image\` is an https URL of the photo (or a data:image/*;base64 URI); each product needs an id, a title and an https image URL. Charges credits by \`imageSize\` (${costs}; default 1K). Rendering takes seconds: set \`wait_seconds\` (up to ${maxWaitSeconds}) to get the finished image in this answer, otherwise the answer comes at once with status 'processing' and get_generation tells the outcome later. Send an \`idempotency_key\` when a call may be retried, so a retry returns the same generation instead of charging again. A complete generation comes with its detail image URL and a small preview image.`,
  get_generation: `Get one generation by id (\`agen_…\`): its status ('processing', 'complete' or 'failed'), its image URLs when complete (with a small preview image), or its error when failed.`,
  list_generations:
    'List the generations of the organization, newest first, optionally only one status or mode. Paged: when has_more is true, call again with starting_after set to the last id returned.',
  get_credit_balance: `Get the organization's credit balance: how many credits are left for generations (${costs} per generation by size).`,
};

/** The tools as `tools/list` answers them, built once: their schemas never change while the process runs. */
export const toolList: Tool[] = (Object.keys(toolSchemas) as ToolName[]).map((name) => ({
  name,
  description: descriptions[name],
  inputSchema: toolInputSchema(name),
}));

export const isToolName = (name: string): name is ToolName => Object.hasOwn(toolSchemas, name);

/** A generation as a tool answers it: a sentence for the model, the resource, and the preview inline when complete. */
async function generationResult(
  context: ToolContext,
  generation: GenerationRecord,
  notes: { replayed?: boolean; waited?: boolean } = {},
): Promise<CallToolResult> {
  const resource = generationResource(generation);
  const replayed = notes.replayed ? ' The idempotency key had made it before: nothing new was made or charged.' : '';
  const status =
    resource.status === 'complete'
      ? `is complete. Detail image: ${resource.imageVariants?.detail.url ?? resource.imageUrl}`
      : resource.status === 'failed'
        ? `failed (${resource.error?.code}): ${resource.error?.message}`
        : `is still processing${notes.waited ? ' after the wait' : ''}; call get_generation with its id to see it finish.`;
  const content: CallToolResult['content'] = [
    { type: 'text', text: `Generation ${resource.id} ${status}${replayed}` },
    { type: 'text', text: JSON.stringify(resource) },
  ];
  const image = await readListImage(context.services.cdn, generation);
  if (image) content.push({ type: 'image', data: image.data, mimeType: image.mimeType });
  return { content };
}

const jsonResult = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

/** Reads the generation again until it is terminal, the wait is over, or the call is cancelled. */
async function settle(context: ToolContext, generation: GenerationRecord, seconds: number) {
  const deadline = performance.now() + seconds * 1000;
  let current = generation;
  while (current.status === 'processing' && performance.now() < deadline && !context.signal.aborted) {
    try {
      await sleep(Math.min(waitPollMs, Math.max(0, deadline - performance.now())), undefined, {
        signal: context.signal,
      });
    } catch {
      break; // cancelled: answer with what is known
    }
    current = await context.services.generations.get(current.organizationId, current.id);
  }
  return current;
}

/**
 * Each tool does what its REST route does, under the same key, the same rate limit (`create` for
 * creating, `read` for the rest) and the same validation; errors are thrown as the routes throw
 * them, and the server turns them into tool errors.
 */
const handlers: { [Name in ToolName]: (context: ToolContext, args: ToolArguments<Name>) => Promise<CallToolResult> } = {
  async create_generation(context, { idempotency_key, wait_seconds, ...input }) {
    const { caller, services } = context;
    const idempotencyKey = idempotency_key ?? null;
    const bound = idempotencyKey ? await services.generations.boundTo(caller.organizationId, idempotencyKey) : null;
    const { generation, replayed } = bound
      ? { generation: bound, replayed: true }
      : await services.generations.create(
          { organizationId: caller.organizationId, apiKeyId: apiKeyIdOf(caller) },
          input,
          idempotencyKey,
        );
    const settled = wait_seconds > 0 ? await settle(context, generation, wait_seconds) : generation;
    return generationResult(context, settled, { replayed, waited: wait_seconds > 0 });
  },

  async get_generation(context, { id }) {
    return generationResult(context, await context.services.generations.get(context.caller.organizationId, id));
  },

  async list_generations(context, args) {
    const page = await context.services.generations.list(context.caller.organizationId, {
      limit: args.limit,
      startingAfter: args.starting_after,
      status: args.status,
      mode: args.mode,
    });
    return jsonResult({ object: 'list', data: page.data.map(generationResource), has_more: page.hasMore });
  },

  async get_credit_balance(context) {
    const organization = await context.services.tenants.findOrganization(context.caller.organizationId);
    return jsonResult({ object: 'credit_balance', balance: organization?.creditBalance ?? 0 });
  },
};

/** Takes the tool's rate limit, validates its arguments and runs it; whatever it throws is the caller's to answer. */
export async function runTool(context: ToolContext, name: ToolName, args: unknown): Promise<CallToolResult> {
  await (name === 'create_generation' ? context.limits.create : context.limits.read).take(context.caller.id);
  const handler = handlers[name] as (context: ToolContext, args: unknown) => Promise<CallToolResult>;
  return handler(context, validate(toolSchemas[name], args ?? {}));
}
