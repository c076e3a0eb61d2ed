/** client-node helpers a controller runs on: API clients sharing one keep-alive agent, and paged lists. */
export {
  closeKeepAliveAgents,
  keepAliveAgentFor,
  makeKeepAliveApiClient,
  pickTls,
  type KeepAliveClientOptions,
  type TlsOptions,
} from './keep-alive-client.js';
export { listAll, type ListPage } from './list-all.js';
