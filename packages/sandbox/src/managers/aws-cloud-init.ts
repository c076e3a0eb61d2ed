import { asGoError, type Ec2MetadataClient } from '../cloud-controllers/ec2-metadata.js';

/** What the AWS cloud provider learns about its own instance from instance metadata before it starts. */
export type AwsCloudInit =
  | { readonly ok: true; readonly region: string; readonly instanceId: string }
  | { readonly ok: false; readonly reason: string };

/** Go's %q for the ASCII texts these errors carry. */
const goQuote = (text: string): string => JSON.stringify(text);

/**
 * The start of the aws-cloud-controller-manager's AWS provider with no cloud config (the chart passes none),
 * as cloud-provider-aws v1.27 does it (pkg/providers/v1/aws.go, the provider's init func and newAWSCloud):
 * its region from the instance identity document ("Loading region from metadata service") with one
 * metadata client; then newAWSCloud ("Building AWS cloudprovider") with a new client, asking for the region
 * again (getRegionFromMetadata works on a copy of the config, so the first answer is not kept) and then for
 * `instance-id` (buildSelfAWSInstance). A failure ends the process through klog.Fatalf (exit 255) with
 * `Cloud provider could not be initialized: could not init cloud provider "aws": ...`
 * (cmd/aws-cloud-controller-manager/main.go; k8s.io/cloud-provider plugins.go InitCloudProvider).
 */
export async function initAwsCloud(
  newMetadataClient: () => Ec2MetadataClient,
  log: (line: string) => void,
): Promise<AwsCloudInit> {
  const fatal = (message: string): AwsCloudInit => ({
    ok: false,
    reason: `Cloud provider could not be initialized: could not init cloud provider "aws": ${message}`,
  });
  try {
    log('Loading region from metadata service');
    await newMetadataClient().region();
  } catch (error) {
    return fatal(asGoError(error).text);
  }
  log('Building AWS cloudprovider');
  const metadata = newMetadataClient();
  let region: string;
  try {
    log('Loading region from metadata service');
    region = await metadata.region();
  } catch (error) {
    return fatal(asGoError(error).text);
  }
  try {
    const instanceId = (await metadata.getMetadata('instance-id')).trim();
    return { ok: true, region, instanceId };
  } catch (error) {
    return fatal(`error fetching instance-id from ec2 metadata service: ${goQuote(asGoError(error).text)}`);
  }
}
