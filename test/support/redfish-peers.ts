/**
 * The Redfish peers the contract suite runs against: our simulator in each vendor personality,
 * and sushy-tools (fake driver, from the project virtualenv). Each starts on loopback and
 * stops with the test file.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSushy } from '../../scripts/hub/sushy.mjs';
import type { UndiciRedfishClientOptions } from '../../src/bmac/redfish/index.js';
import { PERSONALITIES, startSimulatedBmc } from '../../src/bmac/redfish/sim/index.js';

/** A started peer. */
export interface RunningPeer {
  readonly address: string;
  readonly credentials: { readonly username: string; readonly password: string };
  /** An ISO URL the peer can fetch (sushy-tools downloads it on insert). */
  readonly imageUrl: string;
  /** Client options that suit the peer's speed. */
  readonly clientOptions: Partial<UndiciRedfishClientOptions>;
  /** What the host booted, where the peer can tell (the simulator). */
  bootedImage?: () => string | undefined;
  /** InsertMedia POSTs served, where the peer can tell. */
  inserts?: () => number;
  stop(): Promise<void>;
}

/** A peer to start. */
export interface Peer {
  readonly name: string;
  start(): Promise<RunningPeer>;
}

const FAST = {
  powerPollMs: 10,
  mediaPollMs: 10,
  insertRetryDelayMs: 10,
  minTaskPollMs: 5,
  retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 40 },
} satisfies Partial<UndiciRedfishClientOptions>;

/**
 * Our simulator with the named personality, host powered off and CD empty, addressed with the
 * given BMO scheme.
 */
export function simulatorPeer(personality: string, scheme = 'redfish-virtualmedia'): Peer {
  return {
    name: `simulator (${personality}, ${scheme})`,
    async start() {
      const bmc = await startSimulatedBmc({
        personality: PERSONALITIES[personality]!,
        power: 'Off',
        credentials: { username: 'admin', password: `pw-${personality}` },
      });
      return {
        address: bmc.address.replace(/^redfish-virtualmedia/, scheme),
        credentials: bmc.credentials,
        imageUrl: 'http://127.0.0.1:9/images/3f2a9c.iso',
        clientOptions: FAST,
        bootedImage: () => bmc.state().bootedImage,
        inserts: () => bmc.counts['POST InsertMedia'] ?? bmc.counts['PATCH VirtualMediaSlot'] ?? 0,
        stop: () => bmc.stop(),
      };
    },
  };
}

/** sushy-tools with Basic auth, and a loopback server for the ISO it downloads on insert. */
export const sushyPeer: Peer = {
  name: 'sushy-tools (fake driver)',
  async start() {
    const iso = Buffer.alloc(256 * 1024, 0x2a);
    const images = createServer((req, res) => {
      res.writeHead(req.url === '/images/discovery.iso' ? 200 : 404, {
        'content-length': req.url === '/images/discovery.iso' ? iso.length : 0,
      });
      res.end(req.url === '/images/discovery.iso' && req.method !== 'HEAD' ? iso : undefined);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    const credentials = { username: 'admin', password: 'sushy-contract-pw' };
    const bmc = await startSushy({ auth: credentials }).catch((err: unknown) => {
      images.close();
      throw err;
    });
    const port = (images.address() as AddressInfo).port;
    return {
      address: `redfish-virtualmedia+${bmc.url}`,
      credentials,
      imageUrl: `http://127.0.0.1:${String(port)}/images/discovery.iso`,
      // The fake driver applies power changes after a random 1–11 s.
      clientOptions: { powerPollMs: 250, powerTimeoutMs: 30_000, mediaPollMs: 100 },
      stop: async () => {
        await bmc.stop();
        images.closeAllConnections();
        await new Promise<void>((resolve) =>
          images.close(() => {
            resolve();
          }),
        );
      },
    };
  },
};
