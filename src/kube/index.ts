export type {
  ApplyOptions,
  DeleteOptions,
  GroupVersionKind,
  KubeClient,
  KubeObject,
  ListOptions,
  ObjectRef,
} from './kube-client.js';
export { objectName, Propagation, refOf } from './kube-client.js';
export { KubeApiError, KubeApiErrorCode, KubeUnreachableError } from './errors.js';
export type { KubeStatusCause, KubeStatusDetails } from './errors.js';
export { ClientNodeKubeClient, loadKubeConfig } from './client-node-kube-client.js';
export type { ClientNodeKubeClientOptions } from './client-node-kube-client.js';
export type {
  ListResult,
  RequestObserver,
  RequestVerb,
  RuntimeKubeClient,
  ScopeOptions,
  WatchEvent,
  WatchOptions,
  WatchStream,
} from './runtime-kube-client.js';
export { ClientNodeRuntimeKubeClient } from './client-node-runtime-kube-client.js';
export type { ClientNodeRuntimeKubeClientOptions } from './client-node-runtime-kube-client.js';
export { ClientNodeLeaseClient } from './lease-client.js';
export type {
  ClientNodeLeaseClientOptions,
  Lease,
  LeaseClient,
  LeaseSpec,
} from './lease-client.js';
