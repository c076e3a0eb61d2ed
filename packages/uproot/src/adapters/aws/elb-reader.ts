/** All classic and v2 load balancers of the region (paged), to find each Service's load balancer by DNS name. */
import {
  DescribeLoadBalancersCommand as DescribeClassic,
  type ElasticLoadBalancingClient,
} from '@aws-sdk/client-elastic-load-balancing';
import {
  DescribeLoadBalancersCommand as DescribeV2,
  type DescribeLoadBalancersCommandOutput as V2Output,
  type ElasticLoadBalancingV2Client,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { LoadBalancerFacts } from '../../core/model/snapshot.js';

export async function describeLoadBalancers(
  elb: ElasticLoadBalancingClient,
  elbv2: ElasticLoadBalancingV2Client,
): Promise<LoadBalancerFacts[]> {
  const out: LoadBalancerFacts[] = [];
  let marker: string | undefined;
  do {
    const page = await elb.send(
      new DescribeClassic({ PageSize: 400, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const lb of page.LoadBalancerDescriptions ?? []) {
      out.push({ name: lb.LoadBalancerName ?? '', dnsName: lb.DNSName ?? '', type: 'classic' });
    }
    marker = page.NextMarker || undefined;
  } while (marker);
  marker = undefined;
  do {
    const page: V2Output = await elbv2.send(
      new DescribeV2({ PageSize: 400, ...(marker ? { Marker: marker } : {}) }),
    );
    for (const lb of page.LoadBalancers ?? []) {
      out.push({
        name: lb.LoadBalancerName ?? '',
        dnsName: lb.DNSName ?? '',
        type: lb.Type === 'application' || lb.Type === 'gateway' ? lb.Type : 'network',
      });
    }
    marker = page.NextMarker || undefined;
  } while (marker);
  return out;
}
