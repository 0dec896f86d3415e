/**
 * client-node makes a new https.Agent, so a new TLS connection, for every request. This reuses
 * one keep-alive agent made with the same TLS options (credentials in headers, such as
 * refreshed tokens, stay per request). Idle sockets are unref'd by node, so a CLI still exits.
 */
import { Agent as HttpsAgent } from 'node:https';
import type { RequestContext } from '@kubernetes/client-node';

/** A `pre` step for client-node's middleware that puts each request on one keep-alive agent. */
export function keepAliveAgent(): (context: RequestContext) => void {
  let shared: HttpsAgent | undefined;
  return (context) => {
    const fresh = context.getAgent();
    if (fresh?.constructor === HttpsAgent) {
      shared ??= new HttpsAgent({ ...fresh.options, keepAlive: true });
      context.setAgent(shared);
    }
  };
}
