import { asFunction } from 'awilix';
import type { Cradle } from '../../core/cradle.ts';
import { definePlugin } from '../../core/plugin.ts';
import { createHttpTransport } from './http-transport.ts';

export { createHttpTransport } from './http-transport.ts';

export default definePlugin({
  name: 'http',
  provides: ['transport'],
  register({ container }) {
    container.register({
      // Resolved lazily from the container's one guarded client (registered by the kernel after the
      // plugins), so webhook deliveries share its SSRF guard, allowlist and keep-alive pool.
      transport: asFunction(({ outbound }: Cradle) => createHttpTransport(outbound)).singleton(),
    });
  },
});
