export {
  closeKeepAliveAgents,
  keepAliveAgentFor,
  makeKeepAliveApiClient,
  pickTls,
  type KeepAliveClientOptions,
  type TlsOptions,
} from './keep-alive-client.js';
