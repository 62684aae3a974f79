import { webhookTransportContract } from 'visualizer/testing';
import { createGuardedClient, type GuardedClient } from '../core/outbound/guarded-client.ts';
import httpTransportPlugin from '../plugins/transport-http/index.ts';
import { pluginContext } from '../kit/testing/plugin-context.ts';

// The http plugin as the kernel registers it, on a guarded client that allows the suite's loopback receiver.
let client: GuardedClient | undefined;
webhookTransportContract({
  name: 'http',
  create: async ({ hostname, caPem }) => {
    client = createGuardedClient({ allow: [hostname], ca: caPem });
    return (await httpTransportPlugin.register(pluginContext({}, { outbound: client }))).transport;
  },
  dispose: () => client?.close(),
});
