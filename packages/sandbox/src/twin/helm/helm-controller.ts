import { parse } from 'yaml';
import type { Clock } from 'uproot';
import type { EventRecorder } from '../events/event-recorder.js';
import { involvedObjectOf } from '../events/event-recorder.js';
import { isRecord, metaOf, type KubeObject } from '../kube/kube-types.js';
import { R, type TwinKube } from '../kube/twin-kube.js';
import { controllerQueue, type WorkQueue } from '../runtime/work-queue.js';
import { CCM_CHART_NAME, renderCcmChart } from './ccm-chart.js';
import type { ManifestApplier } from './manifest-applier.js';
import { ComponentError } from '../../component-error.js';

/**
 * A simulated helm-controller (k3s-io/helm-controller, which RKE2 bundles): `HelmChart` objects
 * (helm.cattle.io/v1) are installed, upgraded and uninstalled. The sandbox carries one chart, the
 * aws-cloud-controller-manager, rendered from `valuesContent` (and `set`) over its defaults; other charts
 * fail the way a missing chart does.
 */

const SOURCE = { component: 'helm-controller' };

export class HelmController {
  private readonly queue: WorkQueue<string>;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly kube: TwinKube,
    clock: Clock,
    private readonly applier: ManifestApplier,
    private readonly events: EventRecorder,
    log: (line: string) => void,
  ) {
    this.queue = controllerQueue(clock, 'helm-controller', (key) => this.reconcile(key), log);
  }

  start(): void {
    this.unsubscribe = this.kube.watch(R.helmcharts, (event) => {
      if (
        event.type !== 'DELETED' &&
        event.prev &&
        JSON.stringify(event.prev.spec) === JSON.stringify(event.object.spec)
      )
        return;
      this.queue.add(`${event.namespace}/${metaOf(event.object).name ?? ''}`);
    });
    for (const chart of this.kube.list(R.helmcharts))
      this.queue.add(`${metaOf(chart).namespace}/${metaOf(chart).name}`);
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.close();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  private reconcile(key: string): void {
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const owner = `helmchart:${key}`;
    const chart = this.kube.get(R.helmcharts, namespace, name);
    if (!chart || metaOf(chart).deletionTimestamp) {
      this.applier.remove(owner);
      return;
    }
    const spec = isRecord(chart.spec) ? chart.spec : {};
    const chartName = String(spec.chart ?? '');
    const ref = involvedObjectOf(chart);
    if (chartName !== CCM_CHART_NAME && !chartName.endsWith(`/${CCM_CHART_NAME}`)) {
      this.fail(chart, `chart "${chartName}" is not available in the sandbox (only ${CCM_CHART_NAME} is)`);
      return;
    }
    let values: Record<string, unknown> = {};
    try {
      const parsed: unknown = typeof spec.valuesContent === 'string' ? parse(spec.valuesContent) : {};
      if (parsed !== null && parsed !== undefined && !isRecord(parsed))
        throw new ComponentError('valuesContent is not a map');
      values = (parsed as Record<string, unknown> | null) ?? {};
    } catch (error) {
      this.fail(
        chart,
        `Error: failed to parse values: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      );
      return;
    }
    if (isRecord(spec.set)) for (const [k, v] of Object.entries(spec.set)) values[k] = v;
    const rendered = renderCcmChart(values, { name, service: 'Helm' });
    const objects = rendered.objects.map((o) =>
      withReleaseMetadata(o, name, String(spec.targetNamespace ?? namespace)),
    );
    const result = this.applier.apply(owner, objects, String(spec.targetNamespace ?? namespace));
    if (result.errors.length > 0) {
      this.fail(chart, `Error: ${result.errors.join('; ')}`);
      return;
    }
    this.events.record(
      ref,
      'Normal',
      'ApplyJob',
      `Applying HelmChart using Job ${namespace}/helm-install-${name}`,
      SOURCE,
    );
    this.kube.mutateStatus(R.helmcharts, namespace, name, (draft) => {
      draft.status = {
        jobName: `helm-install-${name}`,
        conditions: [{ type: 'Failed', status: 'False', reason: '', message: '' }],
      };
      return draft;
    });
  }

  private fail(chart: KubeObject, message: string): void {
    const meta = metaOf(chart);
    this.events.record(involvedObjectOf(chart), 'Warning', 'Failed', message, SOURCE);
    this.kube.mutateStatus(R.helmcharts, meta.namespace, meta.name ?? '', (draft) => {
      draft.status = {
        jobName: `helm-install-${meta.name}`,
        conditions: [{ type: 'Failed', status: 'True', reason: 'Error', message }],
      };
      return draft;
    });
  }
}

function withReleaseMetadata(obj: KubeObject, release: string, namespace: string): KubeObject {
  const meta = metaOf(obj);
  return {
    ...obj,
    metadata: {
      ...meta,
      labels: { ...(meta.labels ?? {}), 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: {
        ...(meta.annotations ?? {}),
        'meta.helm.sh/release-name': release,
        'meta.helm.sh/release-namespace': namespace,
      },
    },
  };
}
