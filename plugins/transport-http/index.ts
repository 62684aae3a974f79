import { definePlugin } from '../../kit/plugin.ts';
import { createHttpTransport } from './http-transport.ts';

export { createHttpTransport } from './http-transport.ts';

export default definePlugin({
  name: 'transport-http',
  provides: ['transport'],
  register({ outbound }) {
    // The process's one guarded client, so webhook deliveries share its SSRF guard, allowlist and keep-alive pool.
    return { transport: createHttpTransport(outbound) };
  },
});
