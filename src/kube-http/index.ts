export {
  closeKeepAliveAgents,
  makeKeepAliveApiClient,
  type KeepAliveClientOptions,
} from './keep-alive-client.js';
