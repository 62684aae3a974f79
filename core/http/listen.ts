import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` listening and resolves with its URL (an IPv6 address in brackets), or rejects as `listen` fails. */
export async function listen(server: Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost}:${address.port}`;
}
