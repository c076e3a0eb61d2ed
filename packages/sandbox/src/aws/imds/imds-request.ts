import http from 'node:http';

export interface ImdsReply {
  readonly status: number;
  readonly body: string;
}

/**
 * One HTTP request to an instance metadata endpoint, as the twin's own IMDS clients send it (the machines'
 * boot reads, the managers' aws-sdk-go model): the request, to watch its socket or abort it, and the reply.
 */
export function sendImdsRequest(options: http.RequestOptions): {
  readonly request: http.ClientRequest;
  readonly reply: Promise<ImdsReply>;
} {
  let request!: http.ClientRequest;
  const reply = new Promise<ImdsReply>((resolve, reject) => {
    request = http.request(options, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  request.end();
  return { request, reply };
}
