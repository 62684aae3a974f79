import {
  ConnectionError,
  createClient,
  VisualizerError,
  type EventStream,
  type EventStreamMessage,
  type WebhookEventType,
} from '../../clients/node/src/index.ts';
import { keyPrefixes } from '../../core/domain/api-keys.ts';
import { eventTypes } from '../../core/domain/generation.ts';
import { generateWebhookSecret, signWebhook } from '../../core/domain/webhook-signature.ts';
import { UsageError, type Command } from '../command.ts';
import { forwardWebhook } from '../forward-webhook.ts';
import { defaultBaseUrl, httpUrl } from '../service-address.ts';
import { stopSignal } from '../stop-signal.ts';

function eventFilter(text: string | undefined): WebhookEventType[] | undefined {
  if (text === undefined) return undefined;
  const types = [
    ...new Set(
      text
        .split(',')
        .map((type) => type.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = types.filter((type) => !(eventTypes as readonly string[]).includes(type));
  if (types.length === 0 || unknown.length) {
    throw new UsageError(
      `--events must be a comma-separated list of ${eventTypes.join(', ')}${unknown.length ? `, not '${unknown.join(',')}'` : ''}.`,
    );
  }
  return types as WebhookEventType[];
}

/** An error as one line: the API's answer, or what underlies a failed connection (`connect ECONNREFUSED …`). */
function describe(error: unknown): string {
  if (error instanceof VisualizerError) return `${error.status} ${error.type}: ${error.message}`;
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error && cause.cause.message) cause = cause.cause;
  return cause instanceof Error ? cause.message : String(cause);
}

/** A `--secret` of the user's own must be one the signer accepts, or every delivery would fail to sign. */
function checkedSecret(secret: string): string {
  try {
    signWebhook(secret, 'evt_check', 0, '');
  } catch {
    throw new UsageError('--secret must be "whsec_" followed by base64, as the service\'s endpoint secrets are.');
  }
  return secret;
}

export const listen: Command = {
  name: 'listen',
  usage: 'listen --forward-to URL [--events TYPE,TYPE] [--api-key KEY] [--base-url URL] [--secret whsec_…]',
  summary:
    "Receive the organization's events as they happen and forward each, signed, to a URL on this machine (e.g. http://localhost:4000/webhooks). The key comes from --api-key or VISUALIZER_API_KEY, the service from --base-url or VISUALIZER_URL (default http://localhost:$PORT, else :3000).",
  options: {
    'forward-to': { type: 'string' },
    events: { type: 'string' },
    'api-key': { type: 'string' },
    'base-url': { type: 'string' },
    secret: { type: 'string' },
  },
  async run(values, { env, output }) {
    if (typeof values['forward-to'] !== 'string' || !values['forward-to'].trim())
      throw new UsageError('--forward-to is required: the URL of your local webhook receiver.');
    const forwardTo = httpUrl(values['forward-to'].trim(), '--forward-to').href;
    const types = eventFilter(values.events as string | undefined);
    const apiKey = ((values['api-key'] as string | undefined) ?? env.VISUALIZER_API_KEY ?? '').trim();
    if (!apiKey) throw new UsageError('A secret API key is required: --api-key visualizer_… or VISUALIZER_API_KEY.');
    const base = httpUrl(
      ((values['base-url'] as string | undefined) ?? env.VISUALIZER_URL ?? defaultBaseUrl(env)).trim(),
      '--base-url',
    );
    const secret = values.secret === undefined ? generateWebhookSecret() : checkedSecret(String(values.secret));

    // A conversion key would only be refused by the service; saying which key is needed is clearer.
    if (apiKey.startsWith(keyPrefixes.conversion)) {
      output.err(
        `visualizer listen: that is a conversion key (${keyPrefixes.conversion}…); listen needs a secret API key (${keyPrefixes.secret}…).`,
      );
      return 1;
    }

    const stop = new AbortController();
    void stopSignal(env).then(() => stop.abort());
    // No retries inside a request: the stream's own reconnections are paced and reported below.
    const client = createClient({ apiKey, baseUrl: base.href, maxRetries: 0 });
    let stream: EventStream<EventStreamMessage>;
    try {
      stream = await client.events.streamMessages({
        types,
        signal: stop.signal,
        onReconnect: () => output.err('Reconnected; resuming after the last event received.'),
        onRetry: ({ error, delayMs }) =>
          output.err(
            `${error === null ? 'the stream ended' : `the stream was lost (${describe(error)})`}; reconnecting in ${delayMs / 1000} s…`,
          ),
      });
    } catch (error) {
      if (stop.signal.aborted) return 0;
      // The first connection must succeed: a wrong address or key exits at once rather than retrying forever.
      output.err(
        `visualizer listen: ${error instanceof ConnectionError ? `could not reach ${base.origin}: ${describe(error)}` : describe(error)}`,
      );
      return 1;
    }
    output.out(
      `Forwarding ${types ? types.join(', ') : 'all'} events of ${base.origin} to ${forwardTo}. Ctrl-C stops.`,
    );
    output.out(`Webhook signing secret of this session: ${secret}`);
    try {
      for await (const message of stream) {
        // One at a time and in order, as a receiver reading its log expects.
        const outcome = await forwardWebhook(forwardTo, secret, { id: message.id, body: message.data }, stop.signal);
        if (stop.signal.aborted) break;
        const result = 'status' in outcome ? String(outcome.status) : `error: ${outcome.error}`;
        output.out(`${new Date().toISOString()}  ${message.event}  ${message.id}  ${result}`);
      }
    } catch (error) {
      // Only a refusal retrying cannot fix ends the stream, e.g. the key revoked meanwhile.
      if (!(error instanceof VisualizerError)) throw error;
      output.err(`visualizer listen: ${describe(error)}`);
      return 1;
    }
    return 0;
  },
};
